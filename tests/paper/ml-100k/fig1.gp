# Figure 1 of the paper: run `gnuplot fig1.gp` in this folder.
set xlabel 'time (s)'
set key top right
set grid
set terminal pngcairo size 1500,560 font ',11'
set output 'fig1.png'
set multiplot layout 1,2
set logscale y
set format y '10^{%L}'
set ylabel 'best g(x_t) - g_{opt} so far'
plot 'best-ircg-open.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (open loop)', \
     'best-ircg-closed.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (closed loop)', \
     'best-ircg-ls.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (line search)', \
     'best-cgbio.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'CG-BiO', \
     'best-irpg.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-PG', \
     'best-bisg.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'Bi-SG', \
     'best-irpg-full.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-PG (full SVD)', \
     'best-bisg-full.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'Bi-SG (full SVD)'
unset logscale y
set format y '%g'
set ylabel 'f(x_t) at that iterate'
plot 'best-ircg-open.dat' using 1:($3) with steps lw 2 title 'IR-CG (open loop)', \
     'best-ircg-closed.dat' using 1:($3) with steps lw 2 title 'IR-CG (closed loop)', \
     'best-ircg-ls.dat' using 1:($3) with steps lw 2 title 'IR-CG (line search)', \
     'best-cgbio.dat' using 1:($3) with steps lw 2 title 'CG-BiO', \
     'best-irpg.dat' using 1:($3) with steps lw 2 title 'IR-PG', \
     'best-bisg.dat' using 1:($3) with steps lw 2 title 'Bi-SG', \
     'best-irpg-full.dat' using 1:($3) with steps lw 2 title 'IR-PG (full SVD)', \
     'best-bisg-full.dat' using 1:($3) with steps lw 2 title 'Bi-SG (full SVD)'
unset multiplot
set terminal svg size 1500,560 font ',11'
set output 'fig1.svg'
set multiplot layout 1,2
set logscale y
set format y '10^{%L}'
set ylabel 'best g(x_t) - g_{opt} so far'
plot 'best-ircg-open.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (open loop)', \
     'best-ircg-closed.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (closed loop)', \
     'best-ircg-ls.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-CG (line search)', \
     'best-cgbio.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'CG-BiO', \
     'best-irpg.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-PG', \
     'best-bisg.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'Bi-SG', \
     'best-irpg-full.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'IR-PG (full SVD)', \
     'best-bisg-full.dat' using 1:($2 > 0 ? $2 : 1/0) with steps lw 2 title 'Bi-SG (full SVD)'
unset logscale y
set format y '%g'
set ylabel 'f(x_t) at that iterate'
plot 'best-ircg-open.dat' using 1:($3) with steps lw 2 title 'IR-CG (open loop)', \
     'best-ircg-closed.dat' using 1:($3) with steps lw 2 title 'IR-CG (closed loop)', \
     'best-ircg-ls.dat' using 1:($3) with steps lw 2 title 'IR-CG (line search)', \
     'best-cgbio.dat' using 1:($3) with steps lw 2 title 'CG-BiO', \
     'best-irpg.dat' using 1:($3) with steps lw 2 title 'IR-PG', \
     'best-bisg.dat' using 1:($3) with steps lw 2 title 'Bi-SG', \
     'best-irpg-full.dat' using 1:($3) with steps lw 2 title 'IR-PG (full SVD)', \
     'best-bisg-full.dat' using 1:($3) with steps lw 2 title 'Bi-SG (full SVD)'
unset multiplot
