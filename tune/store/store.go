// Package store is ipu-tune's result database: one SQLite file (through
// modernc.org/sqlite, a pure-Go build of SQLite, so the tuner needs no C
// toolchain) holding every candidate ever measured, keyed by a content hash
// of what determines the measurement: the program's text, the target's
// spec, the compiler's version and the candidate's options. A sweep asks
// the store before it measures, so a repeated or resumed sweep measures
// nothing twice; a result is written in one transaction once its
// measurement is complete, so a worker killed in the middle leaves no
// result, never half of one.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Key is what a measurement depends on.
type Key struct {
	SourceSHA256 string // the program's text
	Target       string // the target's spec
	Compiler     string // the compiler's version
	Candidate    string // the candidate's options, canonical text
}

// Hash is the key's content hash: the row's primary key.
func (k Key) Hash() string {
	h := sha256.New()
	for _, part := range []string{k.SourceSHA256, k.Target, k.Compiler, k.Candidate} {
		fmt.Fprintf(h, "%d:%s;", len(part), part) // length-prefixed: no two keys collide by concatenation
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Result is one candidate's measurement.
type Result struct {
	Key Key
	// Status is "pass" (compiled, ran, and --check passed), "fail" (the
	// check failed: a wrong result, never the fastest) or "refused" (the
	// compiler refused it, with Reason).
	Status string
	Reason string
	// Cycles are the simulated cycles; Compared the elements the check
	// compared; MaxErrorToBound its largest error against its bound.
	Cycles          int64
	Compared        int64
	MaxErrorToBound float64
	// Seconds is the measurement's wall time; Worker who measured it.
	Seconds  float64
	Worker   string
	Measured time.Time
}

// Statuses a result may have.
const (
	Pass    = "pass"
	Fail    = "fail"
	Refused = "refused"
)

// Store is an open result database.
type Store struct {
	db   *sql.DB
	path string // as the user named it, for messages
}

const schema = `
CREATE TABLE IF NOT EXISTS results (
	key         TEXT PRIMARY KEY,
	source      TEXT NOT NULL,
	target      TEXT NOT NULL,
	compiler    TEXT NOT NULL,
	candidate   TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'refused')),
	reason      TEXT NOT NULL,
	cycles      INTEGER NOT NULL,
	compared    INTEGER NOT NULL,
	max_ratio   REAL NOT NULL,
	seconds     REAL NOT NULL,
	worker      TEXT NOT NULL,
	measured    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_program ON results (source, target, compiler);
`

// Open opens (creating if need be) the database at path. Several
// processes may share it: SQLite's write-ahead log lets readers go on
// beside one writer, and a writer waits for another up to the busy
// timeout. path is a file's path, taken literally ('a#b.db', '50%.db'
// and 'my?.db' are files of those names), or ":memory:" for a store that
// lasts as long as the process.
func Open(path string) (*Store, error) {
	dsn, memory, err := dataSource(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if memory {
		// Each connection would open a database of its own.
		db.SetMaxOpenConns(1)
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// storePragmas are the connection settings every store takes: writers wait
// for each other, readers go on beside a writer (WAL).
const storePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"

// dataSource is the SQLite URI of the store at path: the path made
// absolute and escaped, so that none of its characters is read as the
// URI's query ('?') or fragment ('#') or as an escape ('%'), then the
// pragmas.
func dataSource(path string) (dsn string, memory bool, err error) {
	if path == ":memory:" {
		return "file::memory:?_pragma=busy_timeout(10000)", true, nil
	}
	if path == "" {
		return "", false, fmt.Errorf("the store needs a file's path (or :memory:)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, fmt.Errorf("%s: %v", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String() + "?" + storePragmas, false, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Get returns the result stored for k, or false.
func (s *Store) Get(ctx context.Context, k Key) (Result, bool, error) {
	row := s.db.QueryRowContext(ctx, `SELECT status, reason, cycles, compared, max_ratio, seconds, worker, measured FROM results WHERE key = ?`, k.Hash())
	r := Result{Key: k}
	var measured string
	err := row.Scan(&r.Status, &r.Reason, &r.Cycles, &r.Compared, &r.MaxErrorToBound, &r.Seconds, &r.Worker, &measured)
	if errors.Is(err, sql.ErrNoRows) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("store %s: %v", s.path, err)
	}
	r.Measured, _ = time.Parse(time.RFC3339Nano, measured)
	return r, true, nil
}

// Put stores r, unless a result for its key is there already (a
// measurement is deterministic: the first one stands). It reports whether
// r was stored.
func (s *Store) Put(ctx context.Context, r Result) (bool, error) {
	switch r.Status {
	case Pass, Fail, Refused:
	default:
		return false, fmt.Errorf("result status %q", r.Status)
	}
	res, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO results
		(key, source, target, compiler, candidate, status, reason, cycles, compared, max_ratio, seconds, worker, measured)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Key.Hash(), r.Key.SourceSHA256, r.Key.Target, r.Key.Compiler, r.Key.Candidate, r.Status, r.Reason,
		r.Cycles, r.Compared, r.MaxErrorToBound, r.Seconds, r.Worker, r.Measured.UTC().Format(time.RFC3339Nano))
	if err != nil {
		// A read-only file, a full disk: name the store.
		return false, fmt.Errorf("store %s: %v", s.path, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Query returns the results for a program (source, target, compiler; an
// empty field matches any), fastest passing first, then the failed and
// refused.
func (s *Store) Query(ctx context.Context, source, target, compiler string) ([]Result, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, target, compiler, candidate, status, reason, cycles, compared, max_ratio, seconds, worker, measured
		FROM results WHERE (? = '' OR source = ?) AND (? = '' OR target = ?) AND (? = '' OR compiler = ?)
		ORDER BY status != 'pass', cycles, candidate`, source, source, target, target, compiler, compiler)
	if err != nil {
		return nil, fmt.Errorf("store %s: %v", s.path, err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var measured string
		if err := rows.Scan(&r.Key.SourceSHA256, &r.Key.Target, &r.Key.Compiler, &r.Key.Candidate, &r.Status, &r.Reason,
			&r.Cycles, &r.Compared, &r.MaxErrorToBound, &r.Seconds, &r.Worker, &measured); err != nil {
			return nil, err
		}
		r.Measured, _ = time.Parse(time.RFC3339Nano, measured)
		out = append(out, r)
	}
	return out, rows.Err()
}
