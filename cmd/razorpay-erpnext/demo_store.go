package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"path/filepath"

	"github.com/go-sql-driver/mysql"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector/config"
	"github.com/razorpay-erpnext/razorpay-erpnext/connector/store"
	"github.com/razorpay-erpnext/razorpay-erpnext/internal/redact"
)

// Servers `demo --driver` uses when --dsn is not given: the local defaults of each engine.
const (
	demoPostgresDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	demoMySQLDSN    = "root@tcp(127.0.0.1:3306)/?parseTime=true"
)

// demoDatabase returns the store the demo runs on and a function that removes it. SQLite is a
// file in dir. For "postgres" and "mysql" dsn names a server (the database in it is only used
// to connect); the demo creates a database of its own there, razorpay_erpnext_demo_<hex>, so
// it never mixes with other rows, and drops it at the end. Errors never repeat the DSN's
// password.
func demoDatabase(ctx context.Context, driver, dsn, dir string, logw io.Writer) (config.Database, func(), error) {
	name := "razorpay_erpnext_demo_" + randHex(6)
	switch driver {
	case store.DriverSQLite:
		return config.Database{Driver: driver, DSN: filepath.Join(dir, "demo.db")}, func() {}, nil
	case store.DriverPostgres:
		if dsn == "" {
			dsn = demoPostgresDSN
		}
		u, err := url.Parse(dsn)
		if err != nil {
			return config.Database{}, nil, fmt.Errorf("demo: --dsn is not a postgres:// URL")
		}
		pw, _ := u.User.Password()
		drop, err := demoCreate(ctx, logw, "pgx", dsn, pw, `CREATE DATABASE "`+name+`"`, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
		u.Path = "/" + name
		return config.Database{Driver: driver, DSN: u.String()}, drop, err
	case store.DriverMySQL:
		if dsn == "" {
			dsn = demoMySQLDSN
		}
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return config.Database{}, nil, fmt.Errorf("demo: --dsn: %w", err)
		}
		cfg.DBName = ""
		drop, err := demoCreate(ctx, logw, "mysql", cfg.FormatDSN(), cfg.Passwd, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4", "DROP DATABASE IF EXISTS `"+name+"`")
		cfg.DBName = name
		return config.Database{Driver: driver, DSN: cfg.FormatDSN()}, drop, err
	default:
		return config.Database{}, nil, fmt.Errorf("demo: --driver must be sqlite, postgres or mysql, got %q", driver)
	}
}

// demoCreate runs create on the server of dsn (database/sql driver drv) and returns a function
// that runs drop there; a failed drop is reported on logw.
func demoCreate(ctx context.Context, logw io.Writer, drv, dsn, password, create, drop string) (func(), error) {
	admin, err := sql.Open(drv, dsn)
	if err != nil {
		return nil, fmt.Errorf("demo: %s", redact.Secrets(err.Error(), password))
	}
	if _, err := admin.ExecContext(ctx, create); err != nil {
		admin.Close()
		return nil, fmt.Errorf("demo: create the demo's database: %s", redact.Secrets(err.Error(), password))
	}
	return func() {
		if _, err := admin.ExecContext(context.WithoutCancel(ctx), drop); err != nil {
			fmt.Fprintf(logw, "demo: drop the demo's database: %s\n", redact.Secrets(err.Error(), password))
		}
		admin.Close()
	}, nil
}
