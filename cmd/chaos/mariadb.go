package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mariadb is a MariaDB server of the run's own: a datadir made by mariadb-install-db under the
// run directory, its own port on 127.0.0.1 and its own socket, started and killed by the run.
// The machine's shared server (3306) is never touched.
type mariadb struct {
	dir, sock, logFile string
	port               int
	password           string // of the "chaos" user the replicas connect as (a secret: checked in logs)
	proc
}

// mariadbTools are the programs the run needs (Debian's mariadb-server package).
var mariadbTools = []string{"mariadb-install-db", "mariadbd"}

// haveMariaDB reports whether the MariaDB programs are on PATH (or in /usr/sbin).
func haveMariaDB() error {
	for _, t := range mariadbTools {
		if _, err := lookTool(t); err != nil {
			return err
		}
	}
	return nil
}

// lookTool finds a program on PATH or in /usr/sbin, where Debian installs mariadbd.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found (install mariadb-server)", name)
}

// newMariaDB prepares a datadir under dir and starts the server.
func newMariaDB(ctx context.Context, dir, password string) (*mariadb, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	m := &mariadb{dir: filepath.Join(dir, "mariadb"), sock: filepath.Join(dir, "mariadb.sock"),
		logFile: filepath.Join(dir, "mariadb.log"), port: port, password: password}
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return nil, err
	}
	install, err := lookTool("mariadb-install-db")
	if err != nil {
		return nil, err
	}
	args := []string{"--no-defaults", "--datadir=" + m.dir, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if u := runAsUser(); u != "" {
		args = append(args, "--user="+u)
	}
	if out, err := exec.CommandContext(ctx, install, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	if err := m.start(ctx); err != nil {
		return nil, err
	}
	root, err := m.open("root", "", "")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	for _, q := range []string{
		"CREATE DATABASE razorpay_erpnext_chaos",
		"CREATE USER 'chaos'@'127.0.0.1' IDENTIFIED BY '" + password + "'",
		"GRANT ALL ON razorpay_erpnext_chaos.* TO 'chaos'@'127.0.0.1'",
	} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("set up MariaDB: %w", err)
		}
	}
	return m, nil
}

// runAsUser is the --user for mariadbd: it refuses to run as root without one.
func runAsUser() string {
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		return "root"
	}
	return ""
}

// start runs mariadbd on the datadir and waits until it answers on its socket.
func (m *mariadb) start(ctx context.Context) error {
	bin, err := lookTool("mariadbd")
	if err != nil {
		return err
	}
	args := []string{"--no-defaults", "--datadir=" + m.dir, "--socket=" + m.sock, "--port=" + strconv.Itoa(m.port),
		"--bind-address=127.0.0.1", "--skip-name-resolve", "--pid-file=" + filepath.Join(m.dir, "mariadbd.pid"),
		"--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M", "--performance-schema=OFF",
		"--max-connections=300", "--log-error=" + m.logFile}
	if u := runAsUser(); u != "" {
		args = append(args, "--user="+u)
	}
	if err := m.launch(bin, args, nil, m.logFile); err != nil {
		return err
	}
	return waitUntil(ctx, 60*time.Second, func() bool {
		if m.exited() {
			return true
		}
		db, err := m.open("root", "", "")
		if err != nil {
			return false
		}
		defer db.Close()
		return db.PingContext(ctx) == nil
	}, func() error { return m.exitedErr("mariadbd", m.logFile) })
}

// open connects as user over the socket (root) or TCP (the replicas' user); db "" = none.
func (m *mariadb) open(userName, password, db string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.DBName = userName, password, db
	cfg.Net, cfg.Addr = "unix", m.sock
	if userName != "root" {
		cfg.Net, cfg.Addr = "tcp", fmt.Sprintf("127.0.0.1:%d", m.port)
	}
	cfg.ParseTime, cfg.Loc, cfg.Timeout = true, time.UTC, 5*time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func (m *mariadb) poll() (*sql.DB, error) { return m.open("root", "", "razorpay_erpnext_chaos") }
func (m *mariadb) driver() string         { return "mysql" }
func (m *mariadb) name() string           { return "MariaDB" }
func (m *mariadb) remove()                {} // the datadir is in the run directory

// dsn is the replicas' DSN with the password as the ${CHAOS_DB_PASSWORD} reference the
// configuration requires.
func (m *mariadb) dsn() string {
	return fmt.Sprintf("chaos:${CHAOS_DB_PASSWORD}@tcp(127.0.0.1:%d)/razorpay_erpnext_chaos?parseTime=true", m.port)
}

// freePort returns a loopback TCP port nothing listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitUntil polls cond every 50 ms until it holds, giving up after limit or when ctx ends;
// fatal (optional) is checked after each failed poll and ends the wait with its error.
func waitUntil(ctx context.Context, limit time.Duration, cond func() bool, fatal func() error) error {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			if fatal != nil {
				return fatal()
			}
			return nil
		}
		if fatal != nil {
			if err := fatal(); err != nil {
				return err
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not reached within %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
