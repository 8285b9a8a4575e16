"""Every option of the real `globus-gridftp-server -help` has a row in docs/GLOBUS.md §6 with a
verdict and a reason, and gridftpd does what the row says: a refused option stops
`gridftpd --check-config` with an error naming the option and giving a reason (never a bare
"not supported"), a harmless one (no-op, warned) checks OK, and `gridftpd -help` lists each
option in the section of its verdict with its reason. The message options (-banner-file,
-login-msg, -login-msg-file) give the same 220 and 230 text as the real server.
"""

import os
import re

from gridftp_harness import (RawControl, gridftpd_binary, make_temp_dir, require_tool, run_peer,
                             run_tests, start_globus_server, start_gridftpd, write_config)

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "GLOBUS.md")
VERDICTS = {"same", "differs", "no-op", "warned", "refused"}
# A help line: " -h -help", " -authz-callouts -cas", " -ia -ipc-auth-mode <string>", " -c <string>".
HELP_OPTION = re.compile(r"^ (-[\w-]+)(?: (-[\w-]+))?(?: <(\w+)>)?(?:\s|$)")
DOC_ROW = re.compile(r"^\| `([^`]+)` \| ([\w-]+) \| (.*) \|$")
# gridftpd -help's section headers, in order, and the verdicts listed under each.
HELP_SECTIONS = (("globus-gridftp-server options gridftpd takes", {"same", "differs"}),
                 ("Accepted, with nothing to do", {"no-op"}),
                 ("Accepted with a warning", {"warned"}),
                 ("Refused at start-up", {"refused"}))
# Config keys named in errors, where they are not the long spelling with underscores.
KEY_OF = {"password-file": "pw_file", "authz-callouts": "cas", "logfile": "log_single",
          "logdir": "log_unique", "log-transfer": "log_transfer", "acl": "acl"}


def globus_help_options() -> list[tuple[list[str], str | None]]:
    """(spellings, value kind or None for a flag) of each option the real server's -help lists."""
    text = run_peer([require_tool("globus-gridftp-server"), "-help"], timeout=30,
                    expect_rc=None, what="globus-gridftp-server -help").output
    options = []
    for line in text.splitlines():
        match = HELP_OPTION.match(line)
        if match:
            spellings = [s for s in (match.group(1), match.group(2)) if s]
            options.append((spellings, match.group(3)))
    assert len(options) > 90, f"only {len(options)} options read from -help:\n{text[:2000]}"
    return options


def doc_rows() -> list[tuple[set[str], str, str]]:
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## 6."):]
    if "\n## " in section[1:]:
        section = section[:section.index("\n## ", 1)]
    rows = []
    for line in section.splitlines():
        match = DOC_ROW.match(line)
        if match:
            rows.append(({s.strip() for s in match.group(1).split(",")}, match.group(2),
                         match.group(3).strip()))
    return rows


def row_for(spellings: list[str], rows) -> tuple[set[str], str, str]:
    found = [row for row in rows if set(spellings) <= row[0]]
    assert len(found) == 1, f"{spellings}: {len(found)} rows in docs/GLOBUS.md §6, want 1"
    return found[0]


def long_spelling(spellings: list[str]) -> str:
    return max(spellings, key=len)


def config_key(spellings: list[str]) -> str:
    name = long_spelling(spellings).lstrip("-")
    return KEY_OF.get(name, name.replace("-", "_"))


def check_config_args(work: str) -> list[str]:
    """A config that passes --check-config as any user: no GSI, anonymous logins under a root
    of their own (run as nobody under root), port 0."""
    path = write_config(os.path.join(work, "base.toml"), {
        "listen": {"control_interface": "127.0.0.1", "port": 0},
        "gsi": {"enabled": False},
        "anonymous": {"enabled": True, "root": os.path.join(work, "root"), "account": "nobody"},
    })
    return [gridftpd_binary(), "--check-config", "-c", path]


def value_for(spellings: list[str], kind: str | None, work: str) -> list[str]:
    if kind is None:
        return []  # a flag: turned on
    special = {"-log-filemode": "0640", "-logdir": work + "/", "-stripe-layout": "1"}
    if long_spelling(spellings) in special:
        return [special[long_spelling(spellings)]]
    return ["2"] if kind == "number" else ["elsewhere"]


def test_every_help_option_has_a_row_with_a_verdict_and_a_reason():
    rows = doc_rows()
    for spellings, _kind in globus_help_options():
        _, verdict, reason = row_for(spellings, rows)
        assert verdict in VERDICTS, f"{spellings}: verdict {verdict!r} is not one of {VERDICTS}"
        assert len(reason) >= 8, f"{spellings}: reason {reason!r} is too short to be one"
        assert "not supported by gridftpd" not in reason, f"{spellings}: bare reason {reason!r}"


def test_refused_options_stop_the_check_naming_the_option_and_why():
    rows = doc_rows()
    work = make_temp_dir("globus-options-")
    base = check_config_args(work)
    refused = [(s, k) for s, k in globus_help_options() if row_for(s, rows)[1] == "refused"]
    assert len(refused) >= 15, refused
    for spellings, kind in refused:
        argv = base + [long_spelling(spellings)] + value_for(spellings, kind, work)
        result = run_peer(argv, timeout=30, expect_rc=None, what=" ".join(argv[2:]))
        key = config_key(spellings)
        assert result.rc != 0, f"{key}: --check-config passed\n{result.describe()}"
        match = re.search(re.escape(key) + r" \(command line\): (.+)", result.output)
        assert match, f"{key}: the error does not name the option\n{result.describe()}"
        assert len(match.group(1)) >= 20 and "not supported by gridftpd" != match.group(1), (
            f"{key}: the error gives no reason\n{result.describe()}")


def test_harmless_options_check_ok():
    rows = doc_rows()
    work = make_temp_dir("globus-options-")
    base = check_config_args(work)
    harmless = [(s, k) for s, k in globus_help_options()
                if row_for(s, rows)[1] in ("no-op", "warned")]
    assert len(harmless) >= 30, harmless
    for spellings, kind in harmless:
        argv = base + [long_spelling(spellings)] + value_for(spellings, kind, work)
        result = run_peer(argv, timeout=30, expect_rc=None, what=" ".join(argv[2:]))
        assert result.rc == 0 and "configuration OK" in result.output, (
            f"{spellings}: a harmless option failed the check\n{result.describe()}")


def test_gridftpd_help_lists_every_option_under_its_verdict_with_the_reason():
    rows = doc_rows()
    text = run_peer([gridftpd_binary(), "-help"], timeout=30, what="gridftpd -help").output
    starts = [text.index(header) for header, _ in HELP_SECTIONS]
    for spellings, _kind in globus_help_options():
        _, verdict, _ = row_for(spellings, rows)
        line = r"^  " + re.escape(long_spelling(spellings)) + r"(?:,[ \w-]*)?\s{2,}(\S.{7,})$"
        match = re.search(line, text, re.M)
        assert match, f"{spellings}: no line with a reason in gridftpd -help"
        section = sum(1 for start in starts if start < match.start()) - 1
        assert verdict in HELP_SECTIONS[section][1], (
            f"{spellings}: docs say {verdict}, gridftpd -help lists it under "
            f"{HELP_SECTIONS[section][0]!r}")


def message_lines(reply: tuple[int, str]) -> tuple[int, list[str]]:
    """A reply's code and its text lines, each without a leading "DDD-" or "DDD "."""
    code, text = reply
    return code, [re.sub(r"^\d{3}[- ]", "", line) for line in text.split("\n")]


def test_message_options_give_the_same_greeting_and_login_reply_as_globus():
    work = make_temp_dir("globus-messages-")
    banner = os.path.join(work, "banner.txt")
    with open(banner, "w", encoding="utf-8") as f:
        f.write("Site banner, line one\nline two\n")
    login = os.path.join(work, "login.txt")
    with open(login, "w", encoding="utf-8") as f:
        f.write("Quota: 10 TB\n")
    for options in (["-banner-file", banner, "-login-msg", "welcome aboard"],
                    ["-banner", "hi there", "-login-msg-file", login]):
        replies = {}
        for name, start in (("globus", start_globus_server), ("gridftpd", start_gridftpd)):
            server = start(extra_args=options)
            try:
                ctl = RawControl(server.host, server.port)
                replies[name] = [message_lines(ctl.greeting), message_lines(ctl.cmd("USER anonymous"))]
                replies[name].append(message_lines(ctl.cmd("PASS x")))
                ctl.close()
            finally:
                server.stop()
        assert replies["gridftpd"] == replies["globus"], (options, replies)
        assert replies["gridftpd"][2][0] == 230 and len(replies["gridftpd"][2][1]) >= 3, replies


if __name__ == "__main__":
    run_tests(globals())
