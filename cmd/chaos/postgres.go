package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// postgres is a PostgreSQL server of the run's own: a cluster made by initdb in a directory of
// its own, its own port on 127.0.0.1 and its own socket, started and killed by the run (the
// whole process group, postmaster and backends, as a machine crash would). The machine's shared
// server (5432) is never touched. As root the cluster runs as the "postgres" user, since
// PostgreSQL refuses to run as root; its directory is then outside the run directory, which
// only root can enter.
type postgres struct {
	bin, dir, data, sock, logFile string
	port                          int
	password                      string // of the "chaos" role the replicas connect as (a secret: checked in logs)
	proc
}

// postgresBin is the directory of initdb and postgres: PATH, else the newest of Debian's
// /usr/lib/postgresql/<version>/bin.
func postgresBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb not found (install postgresql)")
}

// pgVersion is the major version in a /usr/lib/postgresql/<version>/bin path, 0 when none.
func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// newPostgres makes a cluster (password auth over TCP, trust on the socket), starts it and
// creates the run's database, owned by the "chaos" role. On an error nothing is left running
// or on disk.
func newPostgres(ctx context.Context, runDir, password string) (_ *postgres, err error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "razorpay-erpnext-chaos-pg-")
	if err != nil {
		return nil, err
	}
	p := &postgres{bin: bin, dir: dir, data: filepath.Join(dir, "data"), sock: dir,
		logFile: filepath.Join(runDir, "postgres.log"), port: port, password: password}
	defer func() {
		if err != nil {
			p.stop(30 * time.Second)
			p.remove()
		}
	}()
	if p.cred, err = postgresCredential(dir); err != nil {
		return nil, err
	}
	p.group = true
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(randHex(12)), 0o600); err != nil {
		return nil, err
	}
	if err := p.chown(pwFile); err != nil {
		return nil, err
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", p.data, "-U", "postgres", "--pwfile="+pwFile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	admin, err := p.openDB("postgres")
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	for _, q := range []string{
		"CREATE ROLE chaos LOGIN PASSWORD '" + password + "'",
		"CREATE DATABASE razorpay_erpnext_chaos OWNER chaos",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("set up PostgreSQL: %w", err)
		}
	}
	return p, nil
}

// postgresCredential is the user the cluster runs as: "postgres" when this process is root
// (dir is then given to it), else nil (this process's own user).
func postgresCredential(dir string) (*syscall.Credential, error) {
	if u, err := user.Current(); err != nil || u.Uid != "0" {
		return nil, nil
	}
	pu, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs a postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(pu.Uid)
	gid, _ := strconv.Atoi(pu.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// chown gives path to the cluster's user (nothing when it is this process's own).
func (p *postgres) chown(path string) error {
	if p.cred == nil {
		return nil
	}
	return os.Chown(path, int(p.cred.Uid), int(p.cred.Gid))
}

// start runs the postmaster on the cluster and waits until it answers on its socket; after a
// kill -9 it first recovers from its write-ahead log.
func (p *postgres) start(ctx context.Context) error {
	args := []string{"-D", p.data, "-p", strconv.Itoa(p.port), "-k", p.sock, "-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300", "-c", "shared_buffers=64MB", "-c", "logging_collector=off"}
	if err := p.launch(filepath.Join(p.bin, "postgres"), args, nil, p.logFile); err != nil {
		return err
	}
	return waitUntil(ctx, 60*time.Second, func() bool {
		if p.exited() {
			return true
		}
		db, err := p.openDB("postgres")
		if err != nil {
			return false
		}
		defer db.Close()
		return db.PingContext(ctx) == nil
	}, func() error { return p.exitedErr("postgres", p.logFile) })
}

// openDB connects as the superuser over the socket to database db.
func (p *postgres) openDB(db string) (*sql.DB, error) {
	return sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable connect_timeout=5", p.sock, p.port, db))
}

func (p *postgres) poll() (*sql.DB, error) { return p.openDB("razorpay_erpnext_chaos") }
func (p *postgres) driver() string         { return "postgres" }
func (p *postgres) name() string           { return "PostgreSQL" }

// dsn is the replicas' DSN with the password as the ${CHAOS_DB_PASSWORD} reference the
// configuration requires.
func (p *postgres) dsn() string {
	return fmt.Sprintf("postgres://chaos:${CHAOS_DB_PASSWORD}@127.0.0.1:%d/razorpay_erpnext_chaos?sslmode=disable", p.port)
}

// remove deletes the cluster's directory (after stop).
func (p *postgres) remove() { _ = os.RemoveAll(p.dir) }
