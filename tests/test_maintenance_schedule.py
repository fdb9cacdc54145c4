"""When the nightly job runs (clock injected, no sleeping), and `ricorda maintain` /
`ricorda proposals` from the command line."""

from __future__ import annotations

import asyncio
import datetime as dt
import zoneinfo
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from bot.cli.maintenance import register
from bot.serve.maintenance_schedule import NightlyMaintenance
from core.nightly.maintenance import MaintenanceReport
from core.nightly.maintenance_schedule import next_run, parse_time
from storage.db import open_database
from storage.fastpath_store import SqlFastpathStore
from tests.maintenance_fixtures import add_entry, two_years_plan

ROME = zoneinfo.ZoneInfo("Europe/Rome")
AT = dt.time(3, 30)


def local(*fields: int) -> dt.datetime:
    return dt.datetime(2026, 6, *fields, tzinfo=ROME)


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (local(15, 1, 0), local(15, 3, 30)),
        (local(15, 3, 30), local(16, 3, 30)),
        (local(15, 22, 0), local(16, 3, 30)),
    ],
)
def test_next_run_is_the_next_local_0330(now: dt.datetime, expected: dt.datetime) -> None:
    assert next_run(now, AT, ROME) == expected


def test_a_local_time_skipped_by_daylight_saving_still_runs_that_night() -> None:
    before = dt.datetime(2026, 3, 29, 1, 0, tzinfo=ROME)  # clocks jump 02:00 -> 03:00
    due = next_run(before, dt.time(2, 30), ROME)
    assert due.date() == dt.date(2026, 3, 29) and due > before
    assert due.astimezone(dt.UTC) == dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.UTC)


def test_the_next_run_is_computed_in_the_configured_zone() -> None:
    now = dt.datetime(2026, 6, 15, 0, 0, tzinfo=dt.UTC)  # 02:00 in Rome
    assert next_run(now, AT, ROME) == dt.datetime(2026, 6, 15, 1, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize("bad", ["3.30", "24:00", "03:60", "", "noon"])
def test_a_bad_maintenance_time_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="HH:MM"):
        parse_time(bad)


def test_the_timer_runs_the_job_each_night_and_survives_a_failure() -> None:
    now = [dt.datetime(2026, 6, 15, 12, 0, tzinfo=ROME)]
    ran: list[dt.datetime] = []
    slept: list[float] = []

    def job() -> MaintenanceReport:
        ran.append(now[0])
        if len(ran) == 1:
            raise RuntimeError("database down")
        return MaintenanceReport("r", now[0], now[0].date().isoformat())

    async def sleep(seconds: float) -> None:
        if len(slept) == 3:
            raise asyncio.CancelledError
        slept.append(seconds)
        now[0] += dt.timedelta(seconds=seconds)

    nightly = NightlyMaintenance(job, at=AT, tz=ROME, clock=lambda: now[0], sleep=sleep)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(nightly.run_forever())

    assert slept[0] == 15.5 * 3600
    assert [t.isoformat() for t in ran] == [
        "2026-06-16T03:30:00+02:00",
        "2026-06-17T03:30:00+02:00",
        "2026-06-18T03:30:00+02:00",
    ]


def _cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main(
        ctx: typer.Context, data_dir: Annotated[Path | None, typer.Option("--data-dir")] = None
    ) -> None:
        ctx.obj = {"data_dir": data_dir}

    register(app)
    return app


def test_maintain_and_proposals_from_the_command_line(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'ricorda.db'}")
    fastpaths = SqlFastpathStore(engine)
    now = dt.datetime.now(dt.UTC)
    old = add_entry(fastpaths, "never asked again", now=now, age_days=20)
    for i in range(3):
        add_entry(fastpaths, f"revenue two years {i}", now=now, age_days=40, used_days_ago=1,
                  uses=6, plan=two_years_plan())
    engine.dispose()
    cli, runner = _cli(), CliRunner()
    args = ["--data-dir", str(tmp_path)]

    dry = runner.invoke(cli, [*args, "maintain", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "dry run" in dry.output and "would propose" in dry.output
    real = runner.invoke(cli, [*args, "maintain"])
    assert real.exit_code == 0, real.output
    assert "removed 1 (never_reused" in real.output and old.id[:12] in real.output
    assert "proposed #1 structured:REVENUE" in real.output

    listing = runner.invoke(cli, [*args, "proposals", "list"])
    assert "#1 pending structured:REVENUE" in listing.output
    approved = runner.invoke(cli, [*args, "proposals", "approve", "1", "--name", "rev_two"])
    assert "executor rev_two" in approved.output
    executors = runner.invoke(cli, [*args, "proposals", "executors"])
    assert "rev_two active" in executors.output
    missing = runner.invoke(cli, [*args, "proposals", "reject", "7"])
    assert "no proposal #7" in missing.output


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [("maintenance_time", "25:00", "RICORDA_MAINTENANCE_TIME.*HH:MM"),
     ("maintenance_timezone", "Mars/Olympus", "RICORDA_MAINTENANCE_TIMEZONE.*zone")],
)
def test_a_bad_schedule_setting_fails_before_anything_starts(
    tmp_path: Path, setting: str, value: str, message: str
) -> None:
    from bot.settings.checks import check_settings
    from bot.settings.model import Settings
    from bot.wiring.maintenance import build_catalog, maintenance_services
    from core.contracts.errors import ConfigError

    engine = open_database(f"sqlite:///{tmp_path / 'ricorda.db'}")
    with pytest.raises(ConfigError, match=message):  # named, before anything is built
        checked = check_settings(Settings(data_dir=tmp_path, **{setting: value}))
        maintenance_services(checked, engine, build_catalog(engine))
    engine.dispose()
