# Two commands set everything up on a fresh machine with Python 3.11:
#   make demo [PDFS=<files or folder>] [Q="<question>"]     make test
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# The default demo corpus: the Constitution (402 pages, about 2,000 chunks), which the default question is answered
# from; PDFS=$(SHARED)/data/pdfs ingests every shared PDF (about 9,400 chunks: 5-6 minutes more on 2 cores).
SHARED := $(or $(GACETA_SHARED),../shared)
DEMO_PDFS := $(SHARED)/data/pdfs/mx_ley_CPEUM_constitucion_politica.pdf
PDFS ?= $(DEMO_PDFS)
Q ?= ¿Qué dispone el artículo 27 de la Constitución sobre la propiedad de las tierras y aguas?
OCR_PACKAGES := tesseract-ocr tesseract-ocr-spa tesseract-ocr-eng
APT_PACKAGES := $(OCR_PACKAGES) chromium

.PHONY: demo test system-deps ocr-deps install install-dev clean

# The package and what it runs with; `make test` adds the dev extras (pytest, Playwright, schemathesis...) on top.
$(BIN)/.installed: pyproject.toml
	@echo "== installing gaceta into $(VENV) (no dev extras): about 1-2 minutes the first time"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: the CPU build from the local wheel, never the CUDA one pulled by sentence-transformers.
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e .
	touch $@

$(BIN)/.installed-dev: $(BIN)/.installed
	@echo "== adding the dev extras (test tools) to $(VENV)"
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(BIN)/.installed
install-dev: $(BIN)/.installed-dev

# Debian packages the pipeline and the tests use (OCR, browser tests); installed only where missing.
ocr-deps:
	@$(MAKE) --no-print-directory system-deps APT_PACKAGES="$(OCR_PACKAGES)"

system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

demo: install ocr-deps
	@echo "== indexing $(PDFS) into $${GACETA_HOME:-gaceta-data} (parse, chunk, embed; about 80 chunks/s on 2 cores:"
	@echo "   the default demo corpus, the Constitution, takes under a minute; a file the index holds is skipped)"
	$(BIN)/gaceta ingest $(PDFS)
	@echo "== asking: $(Q) (a few seconds)"
	$(BIN)/gaceta ask "$(Q)"

test: install-dev system-deps
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) gaceta-data
