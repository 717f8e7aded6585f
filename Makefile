# `make install`: a release build of fetchlab, copied with the bundled sample (see Docs/install.md).
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share/fetchlab

.PHONY: build install uninstall

build:
	swift build -c release

install: build
	install -d $(BINDIR) $(SHAREDIR)/sample
	install -m 755 .build/release/fetchlab $(BINDIR)/fetchlab
	install -m 644 Datasets/sample/* $(SHAREDIR)/sample/

uninstall:
	rm -f $(BINDIR)/fetchlab
	rm -rf $(SHAREDIR)
