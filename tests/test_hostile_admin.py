"""A non-admin trying every admin command, with any arguments and even a forged "confirmed"
tap: each attempt is refused and reaches no admin operation at all."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from core.catalog.lookup import say
from core.chat.admin_commands import COMMANDS, run_admin_command
from tests.cpu_budget import cpu_timed, within


@dataclass
class SpyAdmin:
    """An AdminOps whose every operation is recorded; a fastpath table of three plans."""

    calls: list[str] = field(default_factory=list)
    fastpaths: list[str] = field(default_factory=lambda: ["p1", "p2", "p3"])

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False,
                       language: str = "en") -> str:
        self.calls.append("fastpaths")
        return "\n".join(self.fastpaths[:n])

    def purge(self, target: str, *, language: str = "en") -> str:
        self.calls.append("purge")
        self.fastpaths.clear()
        return "purged"

    def autopaths_text(self, *, cleared: bool = False, language: str = "en") -> str:
        self.calls.append("autopaths")
        return ""

    def stats_text(self, last_n: int = 500, *, cleared: bool = False,
                   language: str = "en") -> str:
        self.calls.append("stats")
        return ""

    def proposals_text(self, args: str = "", *, cleared: bool = False,
                       language: str = "en") -> str:
        self.calls.append("proposals")
        return ""

    def approve(self, args: str, *, by: str, language: str = "en") -> str:
        self.calls.append("approve")
        return ""

    def reject(self, args: str, *, by: str, language: str = "en") -> str:
        self.calls.append("reject")
        return ""

    def retire(self, args: str, *, by: str, language: str = "en") -> str:
        self.calls.append("retire")
        return ""

    def report_text(self, args: str = "", *, cleared: bool = False,
                    language: str = "en") -> str:
        self.calls.append("report")
        return ""

    def verify(self, target: str, *, cleared: bool = False, language: str = "en") -> str:
        self.calls.append("verify")
        return ""


hostile_args = st.one_of(
    st.sampled_from(["all", " ALL ", "1", "999999999999", "-1", "p1", "; /purge all", "\x00"]),
    st.text(max_size=200),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(COMMANDS), hostile_args, st.booleans(),
       st.sampled_from(["", "telegram:1", "slack:U1", "telegram:admin", "*"]))  # fmt: skip
def test_every_admin_command_is_refused_for_a_non_admin(
    name: str, args: str, confirmed: bool, user: str
) -> None:
    admin = SpyAdmin()
    reply, took = cpu_timed(run_admin_command, admin, name, args, user=user, is_admin=False,
                            confirmed=confirmed)
    assert within(took, 0.1)  # CPU time against a load-scaled bound (tests/cpu_budget.py)
    assert reply == say("admin_refusal", "en", name=name)
    assert admin.calls == []
    assert admin.fastpaths == ["p1", "p2", "p3"]  # nothing changed


def test_the_same_commands_do_run_for_an_admin() -> None:
    """The refusal above is the permission check, not a command that never works."""
    admin = SpyAdmin()
    for name in COMMANDS:
        run_admin_command(admin, name, "1", user="telegram:42", is_admin=True)
    assert sorted(admin.calls) == sorted(COMMANDS)
    assert admin.fastpaths == []
