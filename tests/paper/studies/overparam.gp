set terminal pngcairo size 1300,520 font ',11'
set output 'overparam.png'
set logscale xy
set xlabel 'iteration t'
set grid
set key top right
set multiplot layout 1,2
set ylabel 'training loss (g* = 0)'
plot 'overparam-ircg-open.dat' using 1:($2) with lines lw 2 title 'IR-CG (open loop)', 'overparam-ircg-ls.dat' using 1:($2) with lines lw 2 title 'IR-CG (line search)', 'overparam-cgbio.dat' using 1:($2) with lines lw 2 title 'CG-BiO'
set ylabel 'validation loss - f*'
plot 'overparam-ircg-open.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'IR-CG (open loop)', 'overparam-ircg-ls.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'IR-CG (line search)', 'overparam-cgbio.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'CG-BiO'
unset multiplot
set terminal svg size 1300,520 font ',11'
set output 'overparam.svg'
set multiplot layout 1,2
set ylabel 'training loss (g* = 0)'
plot 'overparam-ircg-open.dat' using 1:($2) with lines lw 2 title 'IR-CG (open loop)', 'overparam-ircg-ls.dat' using 1:($2) with lines lw 2 title 'IR-CG (line search)', 'overparam-cgbio.dat' using 1:($2) with lines lw 2 title 'CG-BiO'
set ylabel 'validation loss - f*'
plot 'overparam-ircg-open.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'IR-CG (open loop)', 'overparam-ircg-ls.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'IR-CG (line search)', 'overparam-cgbio.dat' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 title 'CG-BiO'
unset multiplot
