"""The ``nmm-chess`` command. With no subcommand it speaks UCI on stdin/stdout.

One file a concern: ``run`` (UCI, perft, bench, test suites), ``tools``
(matches, tournaments, sweeps, tuning, the reliability checks), ``data``,
``train`` and ``study`` (the command groups of those names). Each command
imports its work when it runs, so that ``uci`` starts quickly.
"""
from __future__ import annotations

import click

from engine.cli import data, run, study, tools, train


@click.group(invoke_without_command=True)
@click.option("--research", is_flag=True,
              help="Speak UCI in research mode: the uci list shows the research switches too "
                   "(as NMM_CHESS_RESEARCH=1 does; setoption sets any option by name either way).")
@click.pass_context
def main(ctx: click.Context, research: bool) -> None:
    """nmm-chess: a UCI chess engine. Run with no command to speak UCI."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(run.uci, research=research)


for command in (run.uci, run.perft, run.bench_perft, run.bench_eval, run.bench_builds, run.bench, run.suite,
                tools.match, tools.match_log, tools.sprt_queue, tools.pack_pgn, tools.tournament, tools.sweep,
                tools.tune, tools.latency, tools.startup, tools.fuzz, data.data, train.train_group, study.study):
    main.add_command(command)
