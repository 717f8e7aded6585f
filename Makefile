# `make install`: a release build of fetchlab, copied with the bundled sample (see Docs/install.md).
# `make install-built BINARY=path` copies an already built binary instead of building one.
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share/fetchlab
BINARY ?= .build/release/fetchlab

.PHONY: build install install-built uninstall

build:
	swift build -c release

install: build install-built

install-built:
	install -d $(BINDIR) $(SHAREDIR)/sample
	install -m 755 $(BINARY) $(BINDIR)/fetchlab
	install -m 644 Datasets/sample/* $(SHAREDIR)/sample/

uninstall:
	rm -f $(BINDIR)/fetchlab
	rm -rf $(SHAREDIR)
