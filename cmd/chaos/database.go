package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// database is the run's own database server, MariaDB (mariadb.go) or PostgreSQL (postgres.go):
// started, killed with -9 once in the run, started again, and read for the final checks.
type database interface {
	start(ctx context.Context) error
	kill9()
	stop(grace time.Duration)
	remove()                // deletes what the server kept outside the run directory
	poll() (*sql.DB, error) // the superuser on the run's database: status polls, the final read
	dsn() string            // the replicas' DSN, password as ${CHAOS_DB_PASSWORD}
	driver() string         // the store driver of the replicas' configuration
	name() string           // for the progress lines
}

// Drivers Options.Driver accepts.
const (
	driverMySQL    = "mysql"
	driverPostgres = "postgres"
)

// haveDatabase reports whether the programs of driver's server are installed.
func haveDatabase(driver string) error {
	switch driver {
	case driverMySQL:
		return haveMariaDB()
	case driverPostgres:
		_, err := postgresBin()
		return err
	}
	return fmt.Errorf("unknown driver %q (want %s or %s)", driver, driverMySQL, driverPostgres)
}

// newDatabase sets up and starts driver's server for a run in dir.
func newDatabase(ctx context.Context, driver, dir, password string) (database, error) {
	if driver == driverPostgres {
		p, err := newPostgres(ctx, dir, password)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	m, err := newMariaDB(ctx, dir, password)
	if err != nil {
		return nil, err
	}
	return m, nil
}
