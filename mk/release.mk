# mk/release.mk -- what ships: the systemd unit's check, the container
# image, the dashboard's screenshots, make install.

PREFIX  ?= /usr/local
DESTDIR ?=
UNITDIR ?= $(PREFIX)/lib/systemd/system

# Screenshots of the dashboard for docs/, by the headless browser against
# a daemon started for it (tests/browser/screenshots.sh).
#> the dashboard in headless chromium, PNGs into docs/
screenshots: all
	tests/browser/screenshots.sh $(IRCGD) docs

# The systemd unit, checked offline by systemd's own analyzer.
UNIT_PKGS := systemd
deps-unit:
	$(call apt_install,$(UNIT_PKGS))
#> systemd-analyze verify + security on deploy/ircgd.service (wants OK or better)
unit-check: deps-unit $(IRCGD)
	tests/tools/unit_check.sh deploy/ircgd.service $(IRCGD)

# The container image.  `make image` uses the engine that is there
# (docker, podman, buildah) and, without a registry, a debootstrap base
# (deploy/build-image.sh); `make image-test` installs podman and
# debootstrap, builds, and smoke-tests the image (tests/tools/image_test.sh:
# `podman run`, or the image's files under chroot where containers cannot
# run).  IMAGE_RUN_TESTS=0 skips `make test` inside the build.
IMAGE_PKGS := podman buildah uidmap fuse-overlayfs slirp4netns debootstrap curl util-linux
IMAGE ?= localhost/ircgd:latest
IMAGE_RUN_TESTS ?= 1
deps-image:
	$(call apt_install,$(IMAGE_PKGS))
#> build deploy/Dockerfile with docker, podman or buildah as IMAGE=localhost/ircgd:latest
image:
	IMAGE=$(IMAGE) RUN_TESTS=$(IMAGE_RUN_TESTS) deploy/build-image.sh
#> build the image and smoke-test it (serve, a job, the volume)
image-test: deps-image image
	tests/tools/image_test.sh $(IMAGE)

LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR)/pkgconfig

# A pkg-config file: $(1) name, $(2) description, $(3) library, $(4) the
# pkg-config modules it needs privately, $(5) other private flags.
define pc_file
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: $(1)' 'Description: $(2)' 'Version: $(VERSION)' \
	  'Requires.private: $(4)' 'Libs: -L$${libdir} -l$(3)' 'Libs.private: $(5)' \
	  'Cflags: -I$${includedir}' > $(DESTDIR)$(PCDIR)/$(1).pc
endef

# The daemon, the CLI, the unit; the shared libraries with their headers
# and pkg-config files (`cc app.c $$(pkg-config --cflags --libs ircg-client)`).
# DESTDIR stages it (tests/integration/deploy/test_install.c).
#> ircgd, ircg, the systemd unit, libircg.so and libircgclient.so with
#> headers and pkg-config files under PREFIX=/usr/local (DESTDIR stages)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PCDIR)
	install -m 0755 $(IRCGD) $(IRCG_CLI) $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/
	sed 's|/usr/local/bin/ircgd|$(PREFIX)/bin/ircgd|' deploy/ircgd.service > $(DESTDIR)$(UNITDIR)/ircgd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ircgd.service
	install -m 0755 $(LIBIRCG_SO) $(LIBCLIENT_SO) $(DESTDIR)$(LIBDIR)/
	for l in ircg ircgclient; do \
	  ln -sf lib$$l.so.$(VERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so.$(SOVERSION); \
	  ln -sf lib$$l.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so; done
	install -m 0644 solver/include/ircg.h clients/c/ircg_client.h $(DESTDIR)$(INCLUDEDIR)/
	install -d $(DESTDIR)$(INCLUDEDIR)/ircg
	install -m 0644 solver/include/ircg/*.h $(DESTDIR)$(INCLUDEDIR)/ircg/
	$(call pc_file,ircg,the IR-CG solver library,ircg,,-llapacke -lopenblas -larpack -lm)
	$(call pc_file,ircg-client,C client of the ircgd solver service,ircgclient,libcurl libcjson,-pthread -lm)
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

#> what make install put there
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ircgd $(DESTDIR)$(PREFIX)/bin/ircg $(DESTDIR)$(UNITDIR)/ircgd.service
	rm -f $(DESTDIR)$(LIBDIR)/libircg.so* $(DESTDIR)$(LIBDIR)/libircgclient.so* \
	  $(DESTDIR)$(INCLUDEDIR)/ircg.h $(DESTDIR)$(INCLUDEDIR)/ircg_client.h \
	  $(DESTDIR)$(PCDIR)/ircg.pc $(DESTDIR)$(PCDIR)/ircg-client.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/ircg
