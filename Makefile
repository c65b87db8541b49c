# Two commands set everything up on a fresh machine with Python 3.11:
#   make demo PDFS=<folder> Q="<question>"     make test
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PDFS ?= ../shared/data/pdfs
Q ?= ¿Qué dispone el artículo 27 de la Constitución sobre la propiedad de las tierras y aguas?
APT_PACKAGES := tesseract-ocr tesseract-ocr-spa tesseract-ocr-eng chromium

.PHONY: demo test system-deps install clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	# torch first, pinned: the CPU build from the local wheel, never the CUDA one pulled by sentence-transformers.
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install -e '.[dev]'
	touch $@

install: $(BIN)/.installed

# Debian packages the pipeline and the tests use (OCR, browser tests); installed only where missing.
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

demo: install system-deps
	$(BIN)/gaceta ingest $(PDFS)
	$(BIN)/gaceta ask "$(Q)"

test: install system-deps
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) gaceta-data
