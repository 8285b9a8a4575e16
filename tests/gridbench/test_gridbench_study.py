"""gridbench's study-file parser (bench/gridbench/study.py): a good file becomes a Study with
its defaults filled in, and every kind of bad file is refused with a message naming the file
and the key. The ready studies in bench/studies/ all parse. No transfers."""

import glob
import os

from gridftp_harness import run_tests
from gridbench.study import StudyError, load_study, parse_study

GOOD = """
[study]
name = "t"
repetitions = 2
order = "rotate"

[sweep]
level = ["dcpriv", "none"]
streams = [1, 4]
server = ["gridftpd", "globus-gridftp-server"]

[[dataset]]
kind = "memory"
size = "64M"

[[dataset]]
kind = "tree"
files = 10
file_size = "4K"
directory = "/var/tmp"
"""


def refused(text: str, *fragments: str) -> str:
    """The parser's message for a bad study; it must name every fragment."""
    try:
        parse_study(text, "bad.toml")
    except StudyError as e:
        message = str(e)
    else:
        raise AssertionError(f"accepted a bad study:\n{text}")
    assert message.startswith("bad.toml: "), message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def replace(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new)


def test_good_study_and_defaults():
    study = parse_study(GOOD, "good.toml")
    assert study.name == "t" and study.repetitions == 2 and study.order == "rotate"
    assert study.levels == ("none", "dcpriv"), "levels are kept weakest first"
    assert study.streams == (1, 4)
    assert study.servers == ("gridftpd", "globus-gridftp-server")
    assert study.clients == ("globus-url-copy",) and study.transports == ("tcp",)
    assert study.concurrency == (1,) and study.server_threads == (0,)
    assert study.path is None, "no [path]: loopback"
    memory, tree = study.datasets
    assert (memory.kind, memory.size, memory.name) == ("memory", 64 << 20, "memory 64 MiB")
    assert (tree.files, tree.file_size, tree.total_bytes) == (10, 4096, 40960)
    assert study.ciphers == ("aes-128-gcm", "aes-256-gcm")


def test_lone_values_are_sweeps_of_one_and_name_defaults_to_file():
    study = parse_study(GOOD.replace('name = "t"\n', "").replace("streams = [1, 4]",
                                                                  "streams = 8"), "/x/quick.toml")
    assert study.name == "quick" and study.streams == (8,)


def test_path_section():
    study = parse_study(GOOD + "[path]\nrtt_ms = [10, 100]\nloss_percent = [0, 1.5]\n", "p.toml")
    assert study.path.rtt_ms == (10.0, 100.0) and study.path.loss_percent == (0.0, 1.5)
    assert study.path.rate_mbit == (1000.0,)


def test_unknown_keys_and_sections_are_named():
    refused(replace("streams = [1, 4]", "stream = [1, 4]"), "[sweep] stream", "unknown key")
    refused(replace("[study]", "[studdy]"), "[studdy]", "unknown section")
    refused(replace('kind = "memory"', 'kind = "memory"\nbytes = 5'),
            "[[dataset]] #1 bytes", "unknown key")
    refused(GOOD + "[ceilings]\nopenssl = 1\n", "[ceilings] openssl", "unknown key")


def test_bad_values_are_named():
    refused(replace('"dcpriv", "none"', '"dcprov"'), "[sweep] level", "'dcprov'", "dcpriv")
    refused(replace("streams = [1, 4]", "streams = [0, 4]"), "[sweep] streams", "at least 1")
    refused(replace("streams = [1, 4]", 'streams = ["4"]'), "[sweep] streams", "integer")
    refused(replace("streams = [1, 4]", "streams = [1, 1]"), "[sweep] streams", "repeated")
    refused(replace("streams = [1, 4]", "streams = []"), "[sweep] streams", "empty")
    refused(replace("repetitions = 2", "repetitions = 0"), "[study] repetitions", "at least 1")
    refused(replace("repetitions = 2", "repetitions = true"), "[study] repetitions", "integer")
    refused(replace('order = "rotate"', 'order = "random"'), "[study] order", "shuffle")
    refused(replace('size = "64M"', 'size = "lots"'), "[[dataset]] #1 size", "bad size")
    refused(replace('size = "64M"', "size = 0"), "[[dataset]] #1 size", "at least 1 byte")
    refused(replace('"gridftpd", "globus-gridftp-server"', '"vsftpd"'), "[sweep] server",
            "globus-gridftp-server")
    refused(replace('directory = "/var/tmp"', 'directory = "tmp"'),
            "[[dataset]] #2 directory", "absolute")
    refused(replace('kind = "memory"', 'kind = "ram"'), "[[dataset]] #1 kind", "memory")
    refused(GOOD + "[path]\nrtt_ms = [10]\nloss_percent = [100]\n", "[path] loss_percent",
            "below 100")


def test_missing_keys_are_named():
    refused(replace('level = ["dcpriv", "none"]\n', ""), "[sweep] level", "missing")
    refused(replace('size = "64M"\n', ""), "[[dataset]] #1 size", "missing")
    refused(replace("files = 10\n", ""), "[[dataset]] #2 files", "missing")
    refused(GOOD.split("[[dataset]]")[0], "[[dataset]]", "missing")
    refused(GOOD + "[path]\nloss_percent = [1]\n", "[path] rtt_ms", "missing")


def test_keys_of_another_dataset_kind_are_refused():
    refused(replace('size = "64M"', 'size = "64M"\nfiles = 3'), "[[dataset]] #1 files",
            "does not apply to a memory dataset")


def test_toml_syntax_error_names_the_file_and_line():
    message = refused(replace("repetitions = 2", "repetitions = = 2"), "not valid TOML")
    assert "line" in message, message


def test_unreadable_file():
    try:
        load_study("/nonexistent/study.toml")
    except StudyError as e:
        assert "/nonexistent/study.toml" in str(e) and "cannot read" in str(e), str(e)
    else:
        raise AssertionError("a missing study file was accepted")


def test_ready_studies_parse():
    studies = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "bench",
                                            "studies", "*.toml")))
    names = [os.path.basename(p) for p in studies]
    for wanted in ("security-quick.toml", "security-full.toml", "wan.toml", "small-files.toml"):
        assert wanted in names, f"bench/studies/{wanted} is missing ({names})"
    for path in studies:
        study = load_study(path)
        assert study.levels and study.datasets, path


if __name__ == "__main__":
    run_tests(globals())
