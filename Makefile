# Two commands matter on a fresh machine: `make run` (build, then speak UCI)
# and `make test` (build, then the test suite). Everything lives in .venv.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
JOBS   ?= 2
DEPS   := $(VENV)/.deps-installed
CORE   := build/.core-built

.PHONY: docs syzygy-study syzygy-match texel-data texel texel-own search-sprt sprt-queue queue-status stop-tests sprt-status screens-status endgame-match strength-gauntlet strength-gauntlet-before threads-study threads-match threads-soak compress-pgns cutoffs nmm-cut tree-size tree-size-deep chessmaps-study regions strategy run build test test-all perft-full bench-perft bench bench-builds wac fuzz soak matches gauntlet ablation \
        td-data td-net td-leaf td-match td-sprt td-bench evaluators selfplay nnue-gauntlet nnue-net nnue-bench nnue-scaling \
        nnue-screen nnue-sprt pgn-records wdl-model wdl-fit elo-ladder tune-build tune-search tune-sprt clean

DATA   ?= $(or $(NMM_DATA),../shared/data)

run: build
	@exec $(PY) uci_main.py

build: $(CORE)

test: build
	$(PY) -m pytest -q -n $(JOBS)

# docs/options.md, made from the options' declaration (engine/options.py); tests/test_options.py
# fails until it is made again after a change there.
docs: build
	$(PY) -m engine.options docs/options.md
	$(PY) -m engine.search_params docs docs/search_params.md

# Everything, the slow checks included (see the "slow" marker in pyproject.toml).
test-all: build
	$(PY) -m pytest -q -n $(JOBS) -m ''

# Long runs; they read ../shared/data (or $$NMM_DATA) and write reports/<topic>/ (each folder's
# README.md names its commands and holds the write-up).
# Every position of every perft suite, every depth.
perft-full: build
	$(PY) -m engine.cli perft --jobs $(JOBS) --hash 64 --log reports/perft/perft_full.tsv \
	    $(foreach f,$(wildcard $(DATA)/perft/*.epd),--suite $(f))

bench-perft: build
	$(PY) -m engine.cli bench-perft --runs 5

bench: build
	for i in 1 2 3 4 5; do $(PY) -m engine.cli bench 2>/dev/null; done

# A speed-only patch: the working tree against the frozen build of BASE (default HEAD), the same
# bench nodes in less time; INSTR=DEPTH adds callgrind's instruction counts (reports/perft/README.md).
bench-builds: build
	$(PY) -m engine.cli bench-builds --base $(or $(BASE),HEAD) --runs 5 $(if $(INSTR),--instructions $(INSTR))

wac: build
	$(PY) -m engine.cli suite $(DATA)/testsuites/wac.epd --movetime 1 | tee reports/strength/wac.log

# The protocol fuzzer, long: 100,000 random and mutated lines (a short run is in `make test`).
fuzz: build
	$(PY) -m engine.cli fuzz --lines 100000 --seed 1 --report reports/reliability/fuzz.txt

# The soak: 2,000 games at 1+0.01 against itself, then 200 with pondering;
# crashes, hangs, illegal moves and time forfeits are counted (all must be 0).
soak: build
	$(PY) -m engine.cli match nmm nmm --games 2000 --tc 1+0.01 --no-adjudicate --seed 21 \
	    --pgn reports/reliability/soak.pgn | tee reports/reliability/soak.log
	$(PY) -m engine.cli match nmm nmm --games 200 --tc 1+0.01 --no-adjudicate --seed 22 --ponder \
	    --pgn reports/reliability/soak_ponder.pgn | tee reports/reliability/soak_ponder.log

matches: build
	$(PY) -m engine.cli match nmm gnuchess --games 100 --tc 10+0.1 --seed 4 \
	    --pgn reports/strength/gnuchess.pgn | tee reports/strength/gnuchess.log
	$(PY) -m engine.cli match nmm stockfish:UCI_LimitStrength=true,UCI_Elo=2000 --games 100 \
	    --tc 10+0.1 --seed 5 --pgn reports/strength/stockfish2000.pgn | tee reports/strength/stockfish2000.log

# UCI_Elo's calibration (issue 42, engine/study/elo_ladder.py): the UCI_LimitStrength levels against
# Stockfish 15.1's UCI_Elo ladder and the engine's full strength at 5+0.05, one game at a time; the
# games stay in reports/strength/elo_ladder/games/, a rerun goes on (ELO_GAMES may grow), and the
# table is reports/strength/elo_ladder.md. ELO_CHECKS: UCI_Elo settings played through the map in
# use, as its check. The first calibration stopped at ELO_GAMES=16; ELO_GAMES=32 goes on from there.
ELO_GAMES ?= 16
ELO_SKILLS ?= 0,200,300,400,600,800,900
ELO_CHECKS ?= 1400,1700,2000
elo-ladder: build
	$(PY) -m engine.cli study elo-ladder --games $(ELO_GAMES) --step 4 --skills $(ELO_SKILLS) \
	    --elos $(ELO_CHECKS) | tee -a reports/strength/elo_ladder.log
	$(MAKE) -s compress-pgns

# The graded sparring partners (Debian packages, see ../shared/peers.md): a gauntlet at 10+0.1.
GAUNTLET_GAMES ?= 40
gauntlet: build
	$(PY) -m engine.cli tournament nmm gnuchess toga2 glaurung ethereal \
	    stockfish:UCI_LimitStrength=true,UCI_Elo=1800 stockfish:UCI_LimitStrength=true,UCI_Elo=2200 \
	    --gauntlet --games $(GAUNTLET_GAMES) --tc 10+0.1 --concurrency 2 --seed 31 --out reports/gauntlet

# Do late-move reductions and futility pruning pay? Each against the engine without it.
ablation: build
	$(PY) -m engine.cli match nmm nmm:LateMoveReductions=false --games 100 --tc 5+0.05 \
	    --seed 11 --pgn reports/strength/ablation_lmr.pgn | tee reports/strength/ablation_lmr.log
	$(PY) -m engine.cli match nmm nmm:FutilityPruning=false --games 100 --tc 5+0.05 \
	    --seed 12 --pgn reports/strength/ablation_futility.pgn | tee reports/strength/ablation_futility.log

# The TD evaluation (issue 9): its training games, the shipped net, and the studies.
TD_GAMES ?= var/td/games.npz
td-data: build
	$(PY) -m engine.cli data td --games 0 --out $(TD_GAMES)

# Self-play records for the learned evaluation (engine/data/selfplay.py has the format,
# reports/selfplay/README.md the speed): resumable, a rerun continues where a killed one
# stopped, and a larger GAMES adds batches. EVAL_FILE=path plays with a net (TD or NNUE), its
# folder named after the file (nets/td.npz: _td, nets/nnue.npz: _nnue).
# 3-6 random plies after the 2-move book: 4-8 left most games lost from the start (32 of 40
# adjudicated wins in the first measurement).
GAMES ?= 1000
NODES ?= 5000
RANDOM_PLIES ?= 3 6
SELFPLAY_OUT ?= var/selfplay/n$(NODES)_s$(or $(SEED),1)$(if $(EVAL_FILE),_$(basename $(notdir $(EVAL_FILE))))
selfplay: build
	$(PY) -m engine.cli data selfplay --games $(GAMES) --batch-games 100 --nodes $(NODES) --seed $(or $(SEED),1) \
	    --workers $(JOBS) --random-plies $(RANDOM_PLIES) --openings $(DATA)/openings/2moves_v1.epd \
	    --out $(SELFPLAY_OUT) $(if $(EVAL_FILE),--eval-file $(EVAL_FILE))

# Master games as records for the NNUE trainer's --extra (engine/data/pgn_records.py): every
# position scored by the engine's first search iteration, the PGN's result. TWIC is refused.
PGN_RECORDS ?= var/pgnrec/both2500_n1
pgn-records: build
	$(PY) -m engine.cli data pgn-records $(DATA)/games/masters_pgnmentor_both2500.pgn.gz --out $(PGN_RECORDS) \
	    --nodes 1 --batch-games 2000 -j $(JOBS)

# The NNUE evaluation trained by TD(lambda) on the self-play records (issue 41 part 3,
# engine/train/nnue.py, reports/nnue/README.md): a checkpoint after every epoch, a rerun goes on
# from it (--resume); beside the net its learning curve (.curve.png) and summary (.json).
# NNUE_DATA may name several folders; NNUE_EXTRA the pgn-records folders (none: NNUE_EXTRA=).
# The defaults are the recipe of the shipped nets/nnue.npz (reports/nnue, nets/README.md):
# H 128, lambda 0.95, 12 epochs, wd 0.1, mirrored, teacher 0.5, the master games as --extra.
# TEACHER_EVAL=net: the teacher half of the targets is that net's score (a next generation's
# predecessor), not the score recorded with the data. NNUE_INIT=net: start from that net's weights
# (fine-tuning a predecessor on newer games) at the smaller steps LR, LR_END.
NNUE_DATA ?= var/selfplay/n5000_s1
NNUE_EXTRA ?= $(PGN_RECORDS)
LAMBDA ?= 0.95
NNUE_HIDDEN ?= 128
EPOCHS ?= 12
TEACHER ?= 0.5
LR ?= $(if $(NNUE_INIT),0.001,0.01)
LR_END ?= $(if $(NNUE_INIT),1e-5,1e-4)
NNUE_OUT ?= var/nnue/nnue_l$(LAMBDA)_t$(TEACHER)_h$(NNUE_HIDDEN).npz
nnue-net: build
	$(PY) -m engine.cli train nnue $(foreach d,$(NNUE_DATA),--data $(d)) $(foreach d,$(NNUE_EXTRA),--extra $(d)) \
	    --lam $(LAMBDA) --hidden $(NNUE_HIDDEN) --epochs $(EPOCHS) --wd 0.1 --mirror --teacher $(TEACHER) \
	    --lr $(LR) --lr-end $(LR_END) $(if $(NNUE_INIT),--init $(NNUE_INIT)) \
	    --seed $(or $(SEED),1) $(if $(TEACHER_EVAL),--teacher-eval $(TEACHER_EVAL)) $(if $(OWN_REPEAT),--own-repeat $(OWN_REPEAT)) \
	    --out $(NNUE_OUT) --resume

# The trainer's speed (positions a second, one thread) at 256 and 128 hidden units.
nnue-bench: build
	$(PY) -m engine.cli train nnue --bench $(foreach d,$(NNUE_DATA),--data $(d)) --hidden 256
	$(PY) -m engine.cli train nnue --bench $(foreach d,$(NNUE_DATA),--data $(d)) --hidden 128

# Is there enough data yet? The net's validation loss against the handwritten evaluation's, by
# training positions, on the same held-out games (engine/study/nnue_scaling.py).
nnue-scaling: build
	$(PY) -m engine.cli study nnue-scaling $(foreach d,$(NNUE_DATA),--data $(d)) --out reports/nnue/scaling.md

# A net against the handwritten evaluation, the net's engine playing first (issue 41 parts 4-5):
# nnue-screen, 60 games at 20,000 nodes a move (minutes, a first look, var/nnue/screen/), then
# nnue-sprt, the SPRT [0, 10] at 10+0.1 that decides the default (reports/nnue/sprt_NAME.log),
# on the frozen build of FROZEN as search-sprt does (RESUME=1 goes on). NET: the net's file, passed
# by its absolute path so that a frozen build finds it.
NET ?= nets/nnue.npz
NET_NAME = $(basename $(notdir $(NET)))
NET_ENGINE = "$(NMM):Eval=nnue,NnueFile=$(abspath $(NET))"
nnue-screen: build
	mkdir -p var/nnue/screen
	@echo "# engines $(NMM): make nnue-screen NET=$(NET) SEED=$(or $(SEED),5) FROZEN=$(FROZEN)" \
	    | tee var/nnue/screen/$(NET_NAME).log
	$(PY) -m engine.cli match $(NET_ENGINE) $(NMM) --games $(or $(SCREEN_GAMES),60) --nodes 20000 \
	    --seed $(or $(SEED),5) --pgn var/nnue/screen/$(NET_NAME).pgn | tee -a var/nnue/screen/$(NET_NAME).log

nnue-sprt: build
	@echo "# engines $(NMM): make nnue-sprt NET=$(NET) SEED=$(or $(SEED),411) FROZEN=$(FROZEN)" \
	    | tee $(if $(RESUME),-a) reports/nnue/sprt_$(NET_NAME).log
	$(PY) -m engine.cli match $(NET_ENGINE) $(NMM) --games 2000 --tc 10+0.1 --seed $(or $(SEED),411) \
	    --sprt 0 10 --sprt-model logistic --concurrency $(or $(CONCURRENCY),1) $(if $(RESUME),--resume --log reports/nnue/sprt_$(NET_NAME).log) \
	    --pgn reports/nnue/sprt_$(NET_NAME).pgn | tee -a reports/nnue/sprt_$(NET_NAME).log
	$(call gzip-pgn,reports/nnue/sprt_$(NET_NAME).pgn)

# Issue 41's gauntlet: the engine with its net (nmm@FROZEN at its defaults, Eval nnue) and, as
# "before", with Eval=handwritten (EVAL=handwritten, OUT=reports/nnue/gauntlet_handwritten),
# 100 games a pairing at 10+0.1, the openings of strength-gauntlet (seed 71). Stockfish at
# UCI_Elo 2600 joined the field for issue 43's "before" (a rerun plays only the pairings not in pairs.json).
# TIME_MARGIN=MS: either engine may overrun its clock by MS (as fastchess's timemargin).
NNUE_GAUNTLET_OPPONENTS ?= ethereal toga2 glaurung:Threads=1 stockfish:UCI_LimitStrength=true,UCI_Elo=2600
nnue-gauntlet: build
	$(PY) -m engine.cli tournament $(NMM)$(if $(EVAL),:Eval=$(EVAL)) $(NNUE_GAUNTLET_OPPONENTS) \
	    --gauntlet --games $(STRENGTH_GAMES) --tc 10+0.1 --concurrency 2 --seed 71 \
	    $(if $(TIME_MARGIN),--time-margin $(TIME_MARGIN)) --out $(or $(OUT),reports/nnue/gauntlet)
	$(MAKE) -s compress-pgns

# UCI_ShowWDL's win-draw-loss model (engine/train/wdl.py, reports/wdl/README.md): the self-play
# records of WDL_DATA counted by score and material into reports/wdl/bins.csv, the model fitted on
# them into engine/wdl_params.py. WDL_BATCHES=N: the first N batch files only (the committed fit: 72
# of /work/main/var/selfplay/n5000_s1). wdl-fit refits from the committed bins alone.
WDL_DATA ?= var/selfplay/n5000_s1
wdl-model: build
	$(PY) -m engine.cli train wdl --data $(WDL_DATA) $(if $(WDL_BATCHES),--batches $(WDL_BATCHES))
wdl-fit: build
	$(PY) -m engine.cli train wdl

# The shipped net: a correction to the handwritten evaluation (copy var/td/td.npz to nets/td.npz).
chessmaps-study: build
	$(PY) -m engine.cli study chessmaps --depths 5,8,10 | tee reports/chessmaps/study.log

regions: build
	$(PY) -m engine.cli train regions --games 8000 --out nets/regions.npz | tee reports/chessmaps/regions_train.log

strategy: build
	$(PY) -m engine.cli data chessmaps --games 40000 --out nets/strategy.npz

td-net: build
	OPENBLAS_NUM_THREADS=1 $(PY) -m engine.cli train td --games-file $(TD_GAMES) --squares C --nets 3 \
	    --hidden 40 --epochs 2 --seed 1 --base handwritten --out var/td/td.npz

# TDLeaf(lambda) continuations of a net (default: the shipped one), on master games and in self-play.
td-leaf: build
	OPENBLAS_NUM_THREADS=1 $(PY) -m engine.cli train tdleaf --games-file $(TD_GAMES) --source games \
	    --games 16000 --out var/td/leaf_games.npz
	OPENBLAS_NUM_THREADS=1 $(PY) -m engine.cli train tdleaf --games-file $(TD_GAMES) --source selfplay \
	    --games 8000 --out var/td/leaf_self.npz

td-match: build
	$(PY) -m engine.cli match nmm:Eval=td nmm:Eval=handwritten --games 1000 --depth 2 --concurrency 2 \
	    --seed 21 | tee reports/td/td_home_depth2.log

# Issue 41, part 0: Eval td (nets/td.npz, retrained on the tuned weights) against the tuned
# handwritten evaluation, SPRT [0, 10] at 10+0.1 on the frozen build of FROZEN. A run cut
# short goes on with RESUME=1 and the FROZEN its log's first line names.
TD_SPRT := reports/td/td_vs_tuned
td-sprt: build
	@echo "# engines $(NMM): make td-sprt SEED=$(or $(SEED),191) FROZEN=$(FROZEN)" | tee $(if $(RESUME),-a) $(TD_SPRT).log
	$(PY) -m engine.cli match $(NMM):Eval=td $(NMM) --games 2000 --tc 10+0.1 --seed $(or $(SEED),191) \
	    --sprt 0 10 --sprt-model logistic --concurrency $(or $(CONCURRENCY),1) $(if $(RESUME),--resume --log $(TD_SPRT).log) \
	    --pgn $(TD_SPRT).pgn | tee -a $(TD_SPRT).log
	$(call gzip-pgn,$(TD_SPRT).pgn)

td-bench: build
	$(PY) -m engine.cli bench-eval --runs 7 2>&1 | tee reports/td/td_bench.log

evaluators: build
	OPENBLAS_NUM_THREADS=1 $(PY) -m engine.cli study evaluators --train $(TD_GAMES) --depth 2 --games 40

# The Neural MoveMap inside the search (issue 12): the engine's cut-offs as training
# data, a net trained on them, and nodes / time to depth on TWIC 2022 positions.
MASTERS := $(DATA)/games/masters_pgnmentor_both2500.pgn.gz
TWIC    := $(DATA)/games/twic_1427-1428_2022.pgn.gz
cutoffs: build
	$(PY) -m engine.cli data cutoffs $(MASTERS) --limit 200000 --sample 20000 --depth 10 --seed 3 \
	    --workers $(JOBS) --out var/cutoffs/learn_d10_20k.npz
	$(PY) -m engine.cli data cutoffs $(TWIC) --test-set --limit 30000 --sample 400 --depth 12 --seed 2 \
	    --workers $(JOBS) --out var/cutoffs/test_twic_d12.npz
	$(PY) -m engine.cli data nmm --twic-only

nmm-cut: build
	$(PY) -m engine.cli train nmm --learn var/cutoffs/learn_d10_20k.npz --positions 3000000 --epochs 5 \
	    --patience 2 --lr 0.01 --seed 1 --test var/cutoffs/test_twic_d12.npz --out nets/nmm_cutoffs.npz \
	    --report reports/nmm_search/train_cut_d10.json
	$(PY) -m engine.cli train nmm --learn var/cutoffs/learn_d10_20k.npz --positions 2000000 --model hidden \
	    --hidden 32 --epochs 4 --patience 1 --lr 0.006 --seed 1 --test var/cutoffs/test_twic_d12.npz \
	    --out nets/nmm_cutoffs_h32.npz --report reports/nmm_search/train_cut_d10_h32b.json

TREE_CONFIGS := --config history:ordering=history,nmm_min_depth=2 \
	--config weighted-master:ordering=weighted,nmm_min_depth=2,net=nets/nmm.npz \
	--config weighted-cut:ordering=weighted,nmm_min_depth=2,net=nets/nmm_cutoffs.npz \
	--config weighted-cut-h32:ordering=weighted,nmm_min_depth=2,net=nets/nmm_cutoffs_h32.npz \
	--config weighted-cut+reductions:ordering=weighted,nmm_min_depth=2,net=nets/nmm_cutoffs.npz,nmm_reductions=true \
	--config chessmaps:ordering=chessmaps,nmm_min_depth=2
tree-size: build
	$(PY) -m engine.cli study tree-size --depth 11 --count 400 $(TREE_CONFIGS) \
	    --out reports/nmm_search/tree_size_d11.csv 2>/dev/null | tee reports/nmm_search/tree_size_d11.log

# Lazy SMP (issue 13): time to depth, 1 against 2 threads (wall-clock: run it on an idle machine),
# a match of 2 threads against 1 at 10+0.1, and 200 fast games with 2 threads (crashes, illegal moves,
# time forfeits: all must be 0).
# Depth 15 is about what a middle-game move reaches at 10+0.1 (0.2-0.3 s a move).
threads-study: build
	mkdir -p reports/threads
	$(PY) -m engine.cli study threads --depth 15 --bench-depth 15 --count 200 --rounds 3 \
	    --variant breadcrumbs=false --out reports/threads/time_to_depth.csv 2>/dev/null | tee reports/threads/time_to_depth.log
	$(PY) -m engine.cli study threads --count 0 --bench-depth 18 --rounds 5 \
	    --out reports/threads/time_to_depth_bench_d18.csv 2>/dev/null | tee reports/threads/time_to_depth_bench_d18.log

threads-match: build
	mkdir -p reports/threads
	$(PY) -m engine.cli match nmm:Threads=2 nmm --games 200 --tc 10+0.1 --seed 41 \
	    --pgn reports/threads/threads2_vs_1.pgn | tee reports/threads/threads2_vs_1.log

threads-soak: build
	mkdir -p reports/threads
	$(PY) -m engine.cli match nmm:Threads=2 nmm:Threads=2 --games 200 --tc 1+0.01 --no-adjudicate --seed 42 \
	    --pgn reports/threads/soak_threads2.pgn | tee reports/threads/soak_threads2.log

# Depth 14, what the engine reaches at 10+0.1 (about 25 minutes on one core).
tree-size-deep: build
	$(PY) -m engine.cli study tree-size --depth 14 --count 400 --config history:ordering=history,nmm_min_depth=2 \
	    --config weighted-cut:ordering=weighted,nmm_min_depth=2,net=nets/nmm_cutoffs.npz \
	    --config weighted-cut+reductions:ordering=weighted,nmm_min_depth=2,net=nets/nmm_cutoffs.npz,nmm_reductions=true \
	    --out reports/nmm_search/tree_size_d14.csv 2>/dev/null | tee reports/nmm_search/tree_size_d14.log

$(DEPS): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "setuptools>=77" wheel "Cython>=3.0"
	$(PY) -m pip install -q --no-build-isolation -e '.[dev]'
	@touch $@

$(CORE): $(DEPS) setup.py engine/search_params.py $(wildcard ext/*.pyx ext/*.pxi ext/*.h)
	$(PY) setup.py -q build_ext --inplace
	@mkdir -p build && touch $@

texel-data: build
	$(PY) -m engine.cli data texel --data $(DATA) --games 0 --out var/texel/rows.npz

# Writes ext/eval_weights.pxi: review the diff, rebuild, and let an SPRT
# against the previous build decide (reports/strength/README.md).
texel: build
	$(PY) -m engine.cli train texel --rows var/texel/rows.npz

# The same with the engine's own games beside the masters' (OWN_PGN: the match
# PGNs it played; OWN_WEIGHT: how many times each of their rows counts).
OWN_PGN ?= $(wildcard reports/strength/*.pgn.gz reports/nmm_search/*.pgn.gz reports/threads/threads2_vs_1.pgn.gz)
OWN_WEIGHT ?= 8
texel-own: build
	$(PY) -m engine.cli data texel $(addprefix --pgn ,$(OWN_PGN)) --games 0 --out var/texel/own.npz
	$(PY) -m engine.cli train texel --rows var/texel/rows.npz --rows var/texel/own.npz@$(OWN_WEIGHT)

# One search option against the engine without it, SPRT [0, 10] logistic Elo at 10+0.1:
# make search-sprt OPTION=SEEPruning SEED=51; a combo's value by VALUE (OPTION=TimeManagement
# VALUE=effort), another clock by TC (TC=60+0.6), a second part beside the first by PART=_b.
# Parts of one test run with SPRT=off (a part stopping on its own verdict biases the whole) and
# are judged together (make sprt-status OPTION=SEEPruning reads every part in order).
# A run cut short goes on with RESUME=1 and the same SEED: its games count, its log grows (games
# the log records past the PGN's, a PGN lost with its machine before it was saved, count too).
# Both engines are the frozen build of commit FROZEN (default HEAD: commit the option first),
# checked out under var/frozen/ and built on first use (engine/tools/frozen.py), so that a test
# spanning sessions plays one build whatever the working tree does meanwhile. A resumed run
# must pass the same FROZEN (the log's first line names it; a PGN played by another build is
# refused, its players' names carry the commit). At the end the PGN is gzipped for committing.
# FROZEN= (empty) plays the working tree, as before frozen builds: for resuming a test begun so.
# SPRT_DIR: where the logs and games go; issue 43 finishes issue 14's open tests on the build
# with the net in reports/strength/nnue (their first parts, handwritten, stay where they were).
# SPRT_GAMES: the bound on a test's games (2000), raised for a test that must reach its verdict.
FROZEN ?= $(shell git rev-parse --short=7 HEAD)
SPRT_DIR ?= reports/strength
NMM = $(if $(FROZEN),nmm@$(FROZEN),nmm)
# SPRT_CAP=N: a test undecided after N games accepts the side its LLR leans to (`study sprt-cap`).
SPRT_CAP_ARG = $(if $(SPRT_CAP),--sprt-cap $(SPRT_CAP))
search-sprt: build
	mkdir -p $(SPRT_DIR)
	@echo "# engines $(NMM): make search-sprt OPTION=$(OPTION) VALUE=$(or $(VALUE),true) SEED=$(SEED) PART=$(PART) FROZEN=$(FROZEN)$(if $(SPRT_CAP), SPRT_CAP=$(SPRT_CAP))" \
	    | tee $(if $(RESUME),-a) $(SPRT_DIR)/$(OPTION)$(PART).log
	$(PY) -m engine.cli match $(NMM):$(OPTION)=$(or $(VALUE),true) $(NMM) --games $(or $(SPRT_GAMES),2000) \
	    --tc $(or $(TC),10+0.1) --seed $(SEED) $(if $(filter off,$(SPRT)),,--sprt 0 10 --sprt-model logistic $(SPRT_CAP_ARG)) \
	    --concurrency $(or $(CONCURRENCY),1) $(if $(RESUME),--resume --log $(SPRT_DIR)/$(OPTION)$(PART).log) \
	    --pgn $(SPRT_DIR)/$(OPTION)$(PART).pgn | tee -a $(SPRT_DIR)/$(OPTION)$(PART).log
	$(call gzip-pgn,$(SPRT_DIR)/$(OPTION)$(PART).pgn)

# The queued tests (a queue file beside their logs), each played on to its verdict in turn;
# queue-status: where each stands.
QUEUE ?= reports/strength/nnue/queue.txt
sprt-queue: build
	$(PY) -m engine.cli sprt-queue $(QUEUE) --cap $(or $(SPRT_CAP),3000) --concurrency $(or $(CONCURRENCY),2) --run

queue-status:
	@$(PY) -m engine.cli sprt-queue $(QUEUE) --cap $(or $(SPRT_CAP),3000)

sprt-status:
	$(PY) -m engine.cli match-log $(if $(PART),$(SPRT_DIR)/$(OPTION)$(PART).log,$(sort $(wildcard $(SPRT_DIR)/$(OPTION).log $(SPRT_DIR)/$(OPTION)_?.log))) \
	    --sprt 0 10 --sprt-model logistic $(SPRT_CAP_ARG)

# Every search option's test so far, one line each (reports/strength/README.md, "Search options").
SCREENS ?= SEEPruning SingularExtensions CounterMoves ContinuationHistory HistoryLMR Razoring ProbCut \
           CutNodeLMR QSearchChecks HistoryPruning ImprovingMargins CheckExtension
screens-status:
	@for o in $(SCREENS); do \
	    if [ -f $(SPRT_DIR)/$$o.log ]; then \
	        printf '%-20s ' $$o; $(MAKE) -s sprt-status OPTION=$$o | tail -n 1; \
	    else printf '%-20s not played\n' $$o; fi; done

# The endgame rules from starts where they apply (both colours), 10+0.1. Its parts (PART, SEED)
# are one test, so they play the frozen build of FROZEN as search-sprt does (the log's first line).
endgame-match: build
	mkdir -p reports/strength
	$(PY) -m engine.cli data endgame-starts --out var/strength/endgame_starts.epd
	@echo "# engines $(NMM): make endgame-match SEED=$(or $(SEED),1) PART=$(PART) FROZEN=$(FROZEN)" \
	    | tee reports/strength/endgame_rules$(PART).log
	$(PY) -m engine.cli match $(NMM) $(NMM):EndgameRules=false \
	    --openings var/strength/endgame_starts.epd \
	    --games 200 --tc 10+0.1 --seed $(or $(SEED),1) --concurrency $(or $(CONCURRENCY),1) \
	    --pgn reports/strength/endgame_rules$(PART).pgn | tee -a reports/strength/endgame_rules$(PART).log
	$(call gzip-pgn,reports/strength/endgame_rules$(PART).pgn)

# Syzygy tables (issue 42): won 3-4 man positions of every material mated against the DTZ-best
# defence, drawn ones held, probes a second against python-chess (reports/syzygy).
syzygy-study: build
	$(PY) -m engine.cli study syzygy --won $(or $(WON),10) --drawn $(or $(DRAWN),4) \
	    --seed $(or $(SEED),1) | tee reports/syzygy/study.log

# The engine with the 3-4 man tables against itself without, from 4-man starts (won and drawn
# by the tables, each played with both colours), 10+0.1 (reports/syzygy/match.log).
SYZYGY_TABLES ?= $(abspath ../shared/data/syzygy)
syzygy-match: build
	mkdir -p reports/syzygy
	$(PY) -m engine.cli study syzygy-starts --tables $(SYZYGY_TABLES) --out var/syzygy/starts.epd
	$(PY) -m engine.cli match $(NMM):SyzygyPath=$(SYZYGY_TABLES) $(NMM) --openings var/syzygy/starts.epd \
	    --games $(or $(SYZYGY_GAMES),208) --tc 10+0.1 --no-adjudicate --seed $(or $(SEED),1) --concurrency $(or $(CONCURRENCY),1) \
	    --pgn reports/syzygy/match.pgn | tee reports/syzygy/match.log
	$(call gzip-pgn,reports/syzygy/match.pgn)

# Issue 14's yardstick: 100 games a pairing at 10+0.1 (STRENGTH_GAMES to change).
STRENGTH_GAMES ?= 100
STRENGTH_OPPONENTS := toga2 glaurung:Threads=1 gnuchess \
    stockfish:UCI_LimitStrength=true,UCI_Elo=2400 stockfish:UCI_LimitStrength=true,UCI_Elo=2600
strength-gauntlet: build
	$(PY) -m engine.cli tournament nmm $(STRENGTH_OPPONENTS) \
	    --gauntlet --games $(STRENGTH_GAMES) --tc 10+0.1 --concurrency 2 --seed 71 \
	    --out $(or $(OUT),reports/strength/gauntlet_final)
	$(MAKE) -s compress-pgns

# The same gauntlet for the engine as issue 14 found it (BEFORE: hand-set weights,
# history order): the frozen build nmm@BEFORE (var/frozen/, engine/tools/frozen.py), named
# nmm@0a30292 in the records and nmm_0a30292_vs_*.pgn in games/, not by a command line.
# The committed gauntlet was played before frozen builds, by the same commit built in a
# worktree var/before and started as "PYTHON var/before/uci_main.py": its records name that
# command, its games are games/nmm-before_vs_*.pgn.gz. A rerun does not resume it (the name
# differs): it plays the gauntlet again, beside it unless OUT names another folder.
BEFORE ?= 0a30292
strength-gauntlet-before: build
	$(PY) -m engine.cli tournament nmm@$(BEFORE) $(STRENGTH_OPPONENTS) \
	    --gauntlet --games $(STRENGTH_GAMES) --tc 10+0.1 --concurrency 2 --seed 71 \
	    --out $(or $(OUT),reports/strength/gauntlet_before)
	$(MAKE) -s compress-pgns

# A match's record is its PGN gzipped, in volumes of 500 games (NAME.pgn.gz, NAME.2.pgn.gz, ...:
# engine/tools/pgn_volumes.py): git ignores reports/**/*.pgn, which a running match writes, and
# tracks the volumes, whose full ones stay byte for byte the same as the match goes on. This packs
# every PGN under reports/ newer than its first volume, keeping the .pgn that a resumed run goes
# on from (match --resume reads the volumes if it is gone). search-sprt, endgame-match and the
# strength gauntlets end with it; run it by hand after any other match, or after a run cut short,
# before committing its games.
gzip-pgn = if [ -f $(1) ] && [ ! $(1).gz -nt $(1) ]; then $(PY) -m engine.cli pack-pgn $(1); fi
# The end of a session: every test, tuning run and match stopped (their PGNs keep every game that
# ended), then the PGNs gzipped for the commit. The patterns' brackets keep pkill off this recipe's own shell.
stop-tests:
	-pkill -f '[e]ngine.cli sprt-queue'
	-pkill -f '[m]ake (search-sprt|tune-sprt|nnue-sprt|nnue-gauntlet)'
	-pkill -f '[e]ngine.cli (match|tune|tournament)'
	@sleep 3
	-pkill -f '[v]ar/frozen/'
	$(MAKE) -s compress-pgns

compress-pgns:
	@find reports -name '*.pgn' -print | while IFS= read -r f; do $(call gzip-pgn,"$$f"); done

clean:
	rm -rf build ext/*.c engine/*.so .pytest_cache

# Issue 43: the search's constants (engine/search_params.py, docs/search_params.md) tuned by games.
# tune-build: the tuning build of commit FROZEN (default HEAD: commit first), var/frozen/<sha>+tune,
# built with NMM_TUNE=1: each constant a UCI option (a float in hundredths); the playing build is untouched.
tune-build: build
	$(PY) -m engine.tools.frozen $(or $(FROZEN),HEAD)+tune

# tune-search GROUP=pruning: SPSA (nmm-chess tune) on one group's constants (pruning, reductions,
# extensions, aspiration, see, history, time; several joined by commas) from the table's start,
# range, c_end and r_end, on the tuning build of FROZEN. TUNE_R_END replaces the table's r_end
# (fishtest's 0.002 is for tens of thousands of pairs; near 0.5/sqrt(pairs) for a short run).
# A run cut short goes on from var/tune/search-GROUP/state.json with the same arguments.
# TUNE_ITERATIONS, TUNE_PAIRS, TUNE_TC, TUNE_NODES (fixed nodes a move instead of the clock), CONCURRENCY as nmm-chess tune's options.
# GROUP may name single constants too (TM_SETTLED,TM_UNSTABLE); NAME then names the run (its folder, log and games).
comma := ,
TUNE_GROUP = $(or $(GROUP),pruning)
TUNE_LABEL = $(or $(NAME),$(subst $(comma),+,$(TUNE_GROUP)))
TUNE_DIR ?= var/tune/search-$(TUNE_LABEL)
tune-search: tune-build
	$(PY) -m engine.cli tune --engine nmm@$(or $(FROZEN),HEAD)+tune \
	    $$($(PY) -m engine.search_params spsa $(TUNE_GROUP) $(TUNE_R_END)) \
	    --iterations $(or $(TUNE_ITERATIONS),200) --pairs $(or $(TUNE_PAIRS),2) --tc $(or $(TUNE_TC),5+0.05) \
	    $(if $(TUNE_NODES),--nodes $(TUNE_NODES)) --concurrency $(or $(CONCURRENCY),1) --seed $(or $(SEED),1) --out $(TUNE_DIR)

# tune-sprt GROUP=pruning FROZEN=REV: the values a tune-search run ended at (the constants it moved,
# read from its state.json when the test begins and written in the log's first line) against the
# defaults, both on the tuning build of REV: SPRT [0, 5] logistic Elo at 10+0.1, reports/strength/
# tune_GROUP.log and .pgn. TC=60+0.6 SPRT=off TUNE_GAMES=200 PART=_60s: the confirmation at a longer
# clock. RESUME=1 goes on (its games count) with the values of the log's first line.
# MIN_STEPS=1: only the constants the run moved a step c_end or more (noise moves one; PART names it).
# MEAN_FROM=K: the path's mean from step K on instead of its end point (less of the last steps' noise).
# TUNE_DIR: the run's folder (var/tune/search-GROUP; a run's committed copy under reports/strength).
TUNE_NAME = $(TUNE_LABEL)$(PART)
TUNE_LOG = reports/strength/tune_$(TUNE_NAME).log
TUNED = $(if $(RESUME),$$(sed -n '1s/.*TUNED=//p' $(TUNE_LOG)),$$($(PY) -m engine.search_params tuned $(TUNE_DIR)/state.json $(if $(MIN_STEPS),--min-steps $(MIN_STEPS)) $(if $(MEAN_FROM),--mean-from $(MEAN_FROM))))
tune-sprt: tune-build
	mkdir -p reports/strength
	@tuned="$(TUNED)"; test -n "$$tuned" || { echo "tune-sprt: no constant moved"; exit 2; }; \
	echo "# engines nmm@$(FROZEN)+tune: make tune-sprt GROUP=$(TUNE_GROUP) SEED=$(or $(SEED),431) TC=$(or $(TC),10+0.1) PART=$(PART) FROZEN=$(FROZEN)$(if $(SPRT_CAP), SPRT_CAP=$(SPRT_CAP)) TUNED=$$tuned" \
	    | tee $(if $(RESUME),-a) $(TUNE_LOG); \
	$(PY) -m engine.cli match nmm@$(FROZEN)+tune:$$tuned nmm@$(FROZEN)+tune --games $(or $(TUNE_GAMES),4000) \
	    --tc $(or $(TC),10+0.1) --seed $(or $(SEED),431) $(if $(filter off,$(SPRT)),,--sprt 0 5 --sprt-model logistic $(SPRT_CAP_ARG)) \
	    --concurrency $(or $(CONCURRENCY),2) $(if $(RESUME),--resume --log $(TUNE_LOG)) \
	    --pgn reports/strength/tune_$(TUNE_NAME).pgn | tee -a $(TUNE_LOG)
	$(call gzip-pgn,reports/strength/tune_$(TUNE_NAME).pgn)
