"""Tests of the sluice shell, driving the real binary with --embedded.

Every expectation here is written by hand from the shell's documented behaviour (table
layout of the embedded store's formatter, the taos-style "Query OK" lines, RFC 4180 CSV,
JSON arrays of objects, errors with a caret), never captured from a run. The elapsed
time in "Query OK" lines is checked with a regular expression and then masked as (T).
"""
import csv
import io
import json
import os
import pty
import re
import select
import subprocess
import time

import pytest

TIMING = re.compile(r" \(\d+\.\d{3}s\)$")

NETWORK_MSG = "sluice: cannot connect to {}: "

# A small data set: a super table with two child tables.
POWER = (
    "create database power; use power; "
    "create stable meters (ts timestamp, current float, voltage int, phase double) "
    "tags (location varchar(32), groupid int); "
    "insert into d1001 using meters tags ('San Francisco', 2) values "
    "('2025-01-01 00:00:00.000', 10.3, 219, 0.31) ('2025-01-01 00:00:10.000', 12.6, 218, 0.33); "
    "insert into d1002 using meters tags ('Los Angeles', 3) values "
    "('2025-01-01 00:00:00.000', 11.8, 221, 0.28);"
)
POWER_OK = [
    "Query OK, 0 row(s) affected (T)",  # create database
    "Query OK, 0 row(s) affected (T)",  # use
    "Query OK, 0 row(s) affected (T)",  # create stable
    "Query OK, 2 row(s) affected (T)",  # insert into d1001
    "Query OK, 1 row(s) affected (T)",  # insert into d1002
]


def run(sluice_bin, *args, input=None, home=None, embedded=True, text=True):
    env = dict(os.environ)
    if home is not None:
        env["HOME"] = str(home)
    argv = [sluice_bin] + (["--embedded"] if embedded else []) + list(args)
    return subprocess.run(argv, input=input, capture_output=True, text=text, timeout=120,
                          env=env)


def untime(out):
    """Replaces the timing of every Query OK line by (T), after checking its form.

    Expectations spell "(T)" where a timing must be (\\timing on, the default) and leave
    it out where it must not be (after \\timing off)."""
    lines = []
    for line in out.split("\n"):
        if line.startswith("Query OK") and line.endswith(")"):
            assert TIMING.search(line), f"malformed timing in {line!r}"
            line = TIMING.sub(" (T)", line)
        lines.append(line)
    return "\n".join(lines)


def lines(*ls):
    return "".join(line + "\n" for line in ls)


# ------------------------------------------------------------------ -s and table output

def test_s_runs_several_statements_with_exact_table(sluice_bin):
    r = run(sluice_bin, "-s",
            POWER + " select tbname, ts, current, voltage from meters order by ts, tbname;")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert untime(r.stdout) == lines(
        *POWER_OK,
        " tbname |           ts            | current | voltage",
        "--------+-------------------------+---------+---------",
        " d1001  | 2025-01-01 00:00:00.000 |    10.3 |     219",
        " d1002  | 2025-01-01 00:00:00.000 |    11.8 |     221",
        " d1001  | 2025-01-01 00:00:10.000 |    12.6 |     218",
        "Query OK, 3 row(s) in set (T)",
    )


def test_query_ok_lines(sluice_bin):
    r = run(sluice_bin, "-s", POWER + " select count(*) from meters; select * from d1001 where voltage > 1000")
    assert r.returncode == 0, r.stderr
    out = r.stdout.split("\n")
    assert re.fullmatch(r"Query OK, 0 row\(s\) affected \(\d+\.\d{3}s\)", out[0])
    assert re.fullmatch(r"Query OK, 2 row\(s\) affected \(\d+\.\d{3}s\)", out[3])
    assert re.fullmatch(r"Query OK, 1 row\(s\) affected \(\d+\.\d{3}s\)", out[4])
    assert out[5:9] == [" count(*)", "----------", "        3", out[8]]
    assert re.fullmatch(r"Query OK, 1 row\(s\) in set \(\d+\.\d{3}s\)", out[8])
    # An empty result still has its header.
    assert out[9].split("|")[0].strip() == "ts"
    assert re.fullmatch(r"Query OK, 0 row\(s\) in set \(\d+\.\d{3}s\)", out[11])
    assert out[12:] == [""]


def test_timing_off_drops_the_time(sluice_bin):
    r = run(sluice_bin, "-s", "\\timing off; create database d; select 1; \\timing on; select 2")
    assert r.returncode == 0, r.stderr
    out = r.stdout.split("\n")
    assert out[:5] == ["Query OK, 0 row(s) affected", " 1", "---", " 1", "Query OK, 1 row(s) in set"]
    assert out[5:8] == [" 2", "---", " 2"]
    assert re.fullmatch(r"Query OK, 1 row\(s\) in set \(\d+\.\d{3}s\)", out[8])


def test_s_last_statement_needs_no_semicolon_and_empty_statements_are_skipped(sluice_bin):
    r = run(sluice_bin, "-s", ";; -- nothing here;\n/* nor; here */ ; select 7 + 1")
    assert r.returncode == 0, r.stderr
    assert untime(r.stdout) == lines(" 7 + 1", "-------", "     8", "Query OK, 1 row(s) in set (T)")


def test_several_s_and_f_run_in_order(sluice_bin, tmp_path):
    f = tmp_path / "mid.sql"
    f.write_text("insert into t values ('2025-01-01 00:00:01.000', 2);\n")
    r = run(sluice_bin, "-s", "create database d; use d; create table t (ts timestamp, v int);"
            " insert into t values ('2025-01-01 00:00:00.000', 1)",
            "-f", str(f), "-s", "\\timing off; select v from t")
    assert r.returncode == 0, r.stderr
    assert untime(r.stdout).endswith(lines(
        "Query OK, 1 row(s) affected (T)", "Query OK, 1 row(s) affected (T)",
        " v", "---", " 1", " 2", "Query OK, 2 row(s) in set"))


# ------------------------------------------------------------------ CSV and JSON

CSV_DATA = (
    "create database d; use d; "
    "create table t (ts timestamp, v int, s varchar(20), f double); "
    "insert into t values ('2025-01-01 00:00:00.000', 1, 'plain', 1.5) "
    "('2025-01-01 00:00:01.000', NULL, 'a,b', NULL) "
    "('2025-01-01 00:00:02.000', 3, 'say \"hi\"', -0.25) "
    "('2025-01-01 00:00:03.000', 4, '', 2) "
    "('2025-01-01 00:00:04.000', 5, 'two\\nlines', 1e20); "
)


def test_csv_output_exact(sluice_bin):
    r = run(sluice_bin, "--csv", "-s", CSV_DATA + "select * from t")
    assert r.returncode == 0, r.stderr
    # Statements without rows print nothing in CSV mode: the output is data only.
    assert r.stdout == lines(
        "ts,v,s,f",
        "2025-01-01 00:00:00.000,1,plain,1.5",
        "2025-01-01 00:00:01.000,,\"a,b\",",
        "2025-01-01 00:00:02.000,3,\"say \"\"hi\"\"\",-0.25",
        "2025-01-01 00:00:03.000,4,\"\",2",
        "2025-01-01 00:00:04.000,5,\"two\nlines\",1e+20",
    )
    # And a CSV reader agrees.
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows == [
        ["ts", "v", "s", "f"],
        ["2025-01-01 00:00:00.000", "1", "plain", "1.5"],
        ["2025-01-01 00:00:01.000", "", "a,b", ""],
        ["2025-01-01 00:00:02.000", "3", 'say "hi"', "-0.25"],
        ["2025-01-01 00:00:03.000", "4", "", "2"],
        ["2025-01-01 00:00:04.000", "5", "two\nlines", "1e+20"],
    ]


def test_csv_quotes_header_names(sluice_bin):
    r = run(sluice_bin, "--csv", "-s", "select 1 as `a,b`, 2 as `say \"x\"`")
    assert r.returncode == 0, r.stderr
    assert r.stdout == lines('"a,b","say ""x"""', "1,2")


def parse_json_stream(text):
    """Parses the concatenated JSON documents the shell prints, one per result."""
    dec = json.JSONDecoder()
    docs, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def test_json_output(sluice_bin):
    sql = ("create database d precision 'us'; use d; "
           "create table t (ts timestamp, b bool, f float, d double, i bigint, "
           "u int unsigned, s varchar(40), n nchar(10)); "
           "insert into t values ('2025-01-01 00:00:00', true, 1.5, 0.1, -9007199254740993, "
           "4294967295, 'q\"b\\\\s\\nl\\tt\\b', 'h\u00e9llo \u6c34') "
           "('2025-01-01 00:00:00.000001', false, NULL, 1e300, 0, 0, '', NULL); "
           "select * from t; select s from t where i > 5; show databases")
    r = run(sluice_bin, "--json", "-s", sql)
    assert r.returncode == 0, r.stderr
    docs = parse_json_stream(r.stdout)
    assert docs == [
        [
            {"ts": "2025-01-01 00:00:00.000000", "b": True, "f": 1.5, "d": 0.1,
             "i": -9007199254740993, "u": 4294967295, "s": "q\"b\\s\nl\tt\b",
             "n": "h\u00e9llo \u6c34"},
            {"ts": "2025-01-01 00:00:00.000001", "b": False, "f": None, "d": 1e300,
             "i": 0, "u": 0, "s": "", "n": None},
        ],
        [],
        [{"name": "d", "precision": "us", "vgroups": 2, "ntables": 1}],
    ]
    # Numbers are JSON numbers (ints stay exact), not strings.
    assert type(docs[0][0]["i"]) is int and type(docs[0][0]["d"]) is float
    # One array per result; each row is one line.
    assert r.stdout.count("\n") == 4 + 1 + 3


def test_json_nan_is_null_and_bad_utf8_is_replaced(sluice_bin):
    sql = ("create database d; use d; create table t (ts timestamp, d double, s varchar(10));\n"
           "insert into t values ('2025-01-01', 'NaN', 'a\xffb') ('2025-01-02', '-Infinity', 'ok');\n"
           "select * from t;\n")
    r = run(sluice_bin, "--json", input=sql.encode("latin-1"), text=False)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode("utf-8")  # must be valid UTF-8
    assert json.loads(out) == [
        {"ts": "2025-01-01 00:00:00.000", "d": None, "s": "a\ufffdb"},
        {"ts": "2025-01-02 00:00:00.000", "d": None, "s": "ok"},
    ]


def test_csv_and_json_exclude_each_other(sluice_bin):
    r = run(sluice_bin, "--csv", "--json", "-s", "select 1")
    assert r.returncode == 2
    assert "--csv and --json exclude each other" in r.stderr
    assert r.stdout == ""


def test_mode_command(sluice_bin):
    r = run(sluice_bin, "-s", "\\mode csv; select 1 as a; \\mode json; select 2 as b; \\mode table")
    assert r.returncode == 0, r.stderr
    assert r.stdout == lines("a", "1", "[", '  {"b": 2}', "]")


# ------------------------------------------------------------------ files and stdin

SCRIPT = """-- a script: comments; blank lines; statements over several lines
create database d;
use d;

create table t (
  ts timestamp,   -- the key; always first
  s  varchar(30)
);
/* a block comment; with a semicolon */
insert into t values
  ('2025-01-01 00:00:00.000', 'a;b'),
  ('2025-01-01 00:00:01.000', 'it''s; \\' ok'),
  ('2025-01-01 00:00:02.000', '-- not a comment'),
  ('2025-01-01 00:00:03.000', "dq; /* no */");
select s
  from t;
\\timing off
select count(*) from t
"""

SCRIPT_OUT = lines(
    "Query OK, 0 row(s) affected (T)",
    "Query OK, 0 row(s) affected (T)",
    "Query OK, 0 row(s) affected (T)",
    "Query OK, 4 row(s) affected (T)",
    "        s",
    "------------------",
    " a;b",
    " it's; ' ok",
    " -- not a comment",
    " dq; /* no */",
    "Query OK, 4 row(s) in set (T)",
    " count(*)",
    "----------",
    "        4",
    "Query OK, 1 row(s) in set",
)


def test_f_file(sluice_bin, tmp_path):
    f = tmp_path / "script.sql"
    f.write_text(SCRIPT)
    r = run(sluice_bin, "-f", str(f))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert untime(r.stdout) == SCRIPT_OUT


def test_piped_stdin_multiline_and_semicolons_in_strings(sluice_bin):
    r = run(sluice_bin, input=SCRIPT)
    assert r.returncode == 0, r.stderr
    assert untime(r.stdout) == SCRIPT_OUT


def test_source_command(sluice_bin, tmp_path):
    f = tmp_path / "my script.sql"
    f.write_text("create database d;\nuse d;\ncreate table t (ts timestamp, v int);\n")
    r = run(sluice_bin, input=f"source '{f}'\n\\timing off\nshow tables;\n")
    assert r.returncode == 0, r.stderr
    assert untime(r.stdout) == lines(
        *["Query OK, 0 row(s) affected (T)"] * 3,
        " table_name | stable_name |     type     | columns",
        "------------+-------------+--------------+---------",
        " t          | NULL        | NORMAL_TABLE |       2",
        "Query OK, 1 row(s) in set",
    )


def test_missing_file(sluice_bin, tmp_path):
    missing = tmp_path / "nope.sql"
    r = run(sluice_bin, "-f", str(missing))
    assert r.returncode == 1
    assert r.stderr == f"ERROR: cannot open {missing}: No such file or directory\n"


@pytest.mark.parametrize("quit_cmd", ["\\q", "quit", "exit;", "QUIT"])
def test_quit_stops_reading(sluice_bin, quit_cmd):
    r = run(sluice_bin, input=f"\\timing off\nselect 1;\n{quit_cmd}\nselect 2;\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == lines(" 1", "---", " 1", "Query OK, 1 row(s) in set")


# ------------------------------------------------------------------ errors

def test_error_caret_single_line_and_exit_1(sluice_bin):
    r = run(sluice_bin, "-s",
            "create database d; use d; create table t (ts timestamp, v int); "
            "select nosuch from t; create database never")
    assert r.returncode == 1
    err = r.stderr.split("\n")
    assert err[0].startswith("ERROR: ") and "nosuch" in err[0]
    assert err[1] == "select nosuch from t"
    assert err[2] == "       ^"
    assert err[3:] == [""]
    # The statements before the error ran, the ones after it did not.
    assert untime(r.stdout) == lines(*["Query OK, 0 row(s) affected (T)"] * 3)


def test_error_caret_multi_line_statement(sluice_bin):
    # The failing statement starts in the middle of a line; positions are relative to it.
    r = run(sluice_bin, "-s", "create database d; use d; select ts,\n       v\n  from nosuch")
    assert r.returncode == 1
    err = r.stderr.split("\n")
    assert err[0].startswith("ERROR: ") and "nosuch" in err[0]
    assert err[1:] == ["  from nosuch", "       ^", ""]


def test_error_caret_counts_characters_and_keeps_tabs(sluice_bin):
    r = run(sluice_bin, "-s", "create database d; use d; create table t (ts timestamp, v int);"
            " select '\u00e9\u00e9',\tnosuch from t")
    assert r.returncode == 1
    err = r.stderr.split("\n")
    assert err[1] == "select '\u00e9\u00e9',\tnosuch from t"
    # "select 'éé'," is 12 characters (14 bytes); the tab stays a tab.
    assert err[2] == " " * 12 + "\t" + "^"


def test_syntax_error_caret(sluice_bin):
    r = run(sluice_bin, "-s", "select 1 + from t")
    assert r.returncode == 1
    err = r.stderr.split("\n")
    assert err[0].startswith("ERROR: ") and "syntax error" in err[0]
    assert err[1:] == ["select 1 + from t", "           ^", ""]
    # An error at the end of the input puts the caret just past the last character.
    r = run(sluice_bin, "-s", "select (1")
    assert r.returncode == 1
    assert r.stderr.split("\n")[1:] == ["select (1", "         ^", ""]


def test_error_in_file_names_file_position(sluice_bin, tmp_path):
    f = tmp_path / "bad.sql"
    f.write_text("create database d;\nuse d; create table t (ts timestamp, v int);\n\n"
                 "  select 1,\n    nosuch from t;\nselect 2;\n")
    r = run(sluice_bin, "-f", str(f))
    assert r.returncode == 1
    err = r.stderr.split("\n")
    # The statement starts at line 4 of the file; the bad name is at line 5, column 5
    # (of the file and of the statement alike, as it is not on the statement's first line).
    assert re.fullmatch(re.escape(f"ERROR: {f}:5:5: ") + r".*\S", err[0]), err[0]
    # The excerpt is the statement's line, as run: without its ';'.
    assert err[1:] == ["    nosuch from t", "    ^", ""]
    assert len(untime(r.stdout).splitlines()) == 3  # create, use, create; not select 2


def test_error_on_first_statement_line_in_file_offsets_column(sluice_bin, tmp_path):
    f = tmp_path / "bad.sql"
    f.write_text("create database d; use d;\ncreate table t (ts timestamp, v int);  select nosuch from t;\n")
    r = run(sluice_bin, "-f", str(f))
    assert r.returncode == 1
    err = r.stderr.split("\n")
    # "select" starts at column 40 of line 2; nosuch is 7 bytes further.
    assert err[0].startswith(f"ERROR: {f}:2:47: ")
    assert err[1:] == ["select nosuch from t", "       ^", ""]


def test_piped_stdin_stops_at_first_error(sluice_bin):
    r = run(sluice_bin, input="\\timing off\nselect nosuch;\nselect 2;\n")
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("ERROR: ")


def test_continue_runs_past_errors_but_exits_1(sluice_bin):
    r = run(sluice_bin, "--continue", "-s", "\\timing off; select nosuch; select 2; select bad(; select 3")
    assert r.returncode == 1
    assert r.stdout == lines(" 2", "---", " 2", "Query OK, 1 row(s) in set",
                             " 3", "---", " 3", "Query OK, 1 row(s) in set")
    assert r.stderr.count("ERROR: ") == 2


def test_error_without_position_has_no_caret(sluice_bin):
    r = run(sluice_bin, "-s", "\\timing maybe")
    assert r.returncode == 1
    assert r.stderr == "ERROR: \\timing takes on or off, not 'maybe'\n"


# ------------------------------------------------------------------ options

@pytest.mark.parametrize("args,where", [
    (["-h", "127.0.0.1", "-P", "1"], "127.0.0.1:1"),
    (["-h", "127.0.0.1", "-P", "1", "-s", "select 1"], "127.0.0.1:1"),
])
def test_network_backend_unreachable(sluice_bin, args, where):
    # Nobody listens on port 1: the shell says where it tried and exits 2 without output.
    r = run(sluice_bin, *args, embedded=False, input="")
    assert r.returncode == 2
    assert r.stderr.startswith(NETWORK_MSG.format(where))
    assert r.stderr.endswith("\n") and r.stderr.count("\n") == 1
    assert r.stdout == ""


@pytest.mark.parametrize("args,msg", [
    (["-P", "http"], "invalid port 'http'"),
    (["-P", "70000"], "invalid port '70000'"),
    (["--bogus"], "unrecognized option"),
    (["stray"], "unexpected argument 'stray'"),
    (["--embedded", "-h", "x"], "--embedded runs without a cluster"),
])
def test_usage_errors(sluice_bin, args, msg):
    r = run(sluice_bin, *args, embedded=False)
    assert r.returncode == 2
    assert msg in r.stderr
    assert "Try 'sluice --help'" in r.stderr


def test_help_option_lists_every_option(sluice_bin):
    r = run(sluice_bin, "--help", embedded=False)
    assert r.returncode == 0
    assert r.stderr == ""
    for opt in ["-h, --host HOST", "-P, --port PORT", "-s, --sql", "-f, --file FILE", "--csv",
                "--json", "--status", "--embedded", "--continue", "--help", "-V, --version"]:
        assert opt in r.stdout, opt


def test_version(sluice_bin):
    r = run(sluice_bin, "--version", embedded=False)
    assert r.returncode == 0
    assert re.fullmatch(r"sluice \d+\.\d+\.\d+\n", r.stdout)


@pytest.mark.parametrize("cmd", ["help", "help;", "\\h", "\\?"])
def test_help_command(sluice_bin, cmd):
    r = run(sluice_bin, input=cmd + "\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "SQL statements" in out and "Shell commands" in out
    for stmt in ["CREATE DATABASE", "CREATE STABLE", "INSERT INTO", "SELECT", "DELETE FROM",
                 "SHOW DATABASES", "DESCRIBE", "USE db", "DROP TABLE"]:
        assert stmt in out, stmt
    for shell_cmd in ["\\q", "quit", "exit", "help", "\\timing [on|off]", "source FILE",
                      "\\mode", "status"]:
        assert shell_cmd in out, shell_cmd


def test_status(sluice_bin):
    r = run(sluice_bin, "--status")
    assert (r.returncode, r.stdout, r.stderr) == (0, "embedded store: 0 databases, 0 tables\n", "")
    r = run(sluice_bin, "--status", "-s", POWER + " create database e; use e;"
            " create table n1 (ts timestamp, v int); create table n2 (ts timestamp, v int);"
            " \\timing off")
    assert r.returncode == 0, r.stderr
    # Child and normal tables count; the super table is a schema, not a table of rows.
    assert r.stdout.endswith("\nembedded store: 2 databases, 4 tables\n")
    r = run(sluice_bin, input="create database only;\nstatus\n")
    assert r.stdout.endswith("\nembedded store: 1 database, 0 tables\n")


# ------------------------------------------------------------------ the terminal

class Terminal:
    """The shell on a pseudo-terminal, as a person would use it."""

    def __init__(self, sluice_bin, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            env = dict(os.environ, HOME=str(home), TERM="dumb")
            os.execve(sluice_bin, [sluice_bin, "--embedded"], env)
        self.out = b""

    def expect(self, text, timeout=30):
        want = text.encode()
        end = time.time() + timeout
        while want not in self.out:
            left = end - time.time()
            assert left > 0, f"timed out waiting for {text!r}; got {self.out!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                assert data, f"shell ended while waiting for {text!r}; got {self.out!r}"
                self.out += data
        i = self.out.index(want) + len(want)
        seen, self.out = self.out[:i], self.out[i:]
        return seen.decode(errors="replace")

    def send(self, text):
        os.write(self.fd, text.encode())

    def wait(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:
                os.read(self.fd, 65536)  # drain, so the shell never blocks on output
            except OSError:
                time.sleep(0.05)
        os.kill(self.pid, 9)
        raise AssertionError("the shell did not exit")


def test_interactive_prompt_continuation_ctrl_c_and_history(sluice_bin, tmp_path):
    t = Terminal(sluice_bin, tmp_path)
    t.expect("Type help for help")
    t.expect("sluice> ")
    t.send("create database d;\r")
    t.expect("Query OK, 0 row(s) affected")
    t.expect("sluice> ")
    # A statement over several lines gets the continuation prompt.
    t.send("select\r")
    t.expect("   ...> ")
    t.send("'a;b'\r")
    t.expect("   ...> ")
    t.send(";\r")
    assert "a;b" in t.expect("Query OK, 1 row(s) in set")
    t.expect("sluice> ")
    # Ctrl-C abandons a half-typed statement.
    t.send("select nosuch\r")
    t.expect("   ...> ")
    t.send("\x03")
    t.expect("sluice> ")
    t.send("show databases;\r")
    seen = t.expect("Query OK, 1 row(s) in set")
    assert "ERROR" not in seen and " d " in seen
    # Errors at the prompt do not end the session.
    t.send("select nosuch;\r")
    t.expect("ERROR: ")
    t.expect("sluice> ")
    t.send("\\q\r")
    assert t.wait() == 0
    history = (tmp_path / ".sluice_history").read_text()
    assert "create database d;" in history
    assert "select\n'a;b';" in history
    assert "show databases;" in history
    assert "\\q" in history
    assert "select nosuch\n" not in history  # the cancelled statement


def test_interactive_history_is_loaded(sluice_bin, tmp_path):
    (tmp_path / ".sluice_history").write_text("select 40 + 2;\n")
    t = Terminal(sluice_bin, tmp_path)
    t.expect("sluice> ")
    t.send("\x1b[A")  # up arrow: the previous session's statement
    t.send("\r")
    assert " 42" in t.expect("Query OK, 1 row(s) in set")
    t.expect("sluice> ")
    t.send("\x04")  # Ctrl-D ends the session
    assert t.wait() == 0
