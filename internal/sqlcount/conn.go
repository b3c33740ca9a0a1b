package sqlcount

import (
	"context"
	"database/sql/driver"
	"errors"
)

// countedConn forwards to the driver's connection and counts what it executes. Optional
// interfaces the driver lacks answer as database/sql expects of a driver without them
// (driver.ErrSkip: fall back to a prepared statement or the default conversion).
type countedConn struct {
	c *Counter
	driver.Conn
	inTx bool
}

func (k *countedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := k.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	res, err := e.ExecContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		k.c.ran(query, k.inTx)
	}
	return res, err
}

func (k *countedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := k.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	rows, err := q.QueryContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		k.c.ran(query, k.inTx)
	}
	return rows, err
}

func (k *countedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := k.Conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = k.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &countedStmt{conn: k, Stmt: st, query: query}, nil
}

func (k *countedConn) Prepare(query string) (driver.Stmt, error) {
	return k.PrepareContext(context.Background(), query)
}

func (k *countedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var tx driver.Tx
	var err error
	if b, ok := k.Conn.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = k.Conn.Begin() //nolint:staticcheck // the driver offers nothing else
	}
	if err != nil {
		return nil, err
	}
	k.inTx = true
	return &countedTx{conn: k, Tx: tx}, nil
}

func (k *countedConn) Begin() (driver.Tx, error) {
	return k.BeginTx(context.Background(), driver.TxOptions{})
}

func (k *countedConn) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := k.Conn.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (k *countedConn) ResetSession(ctx context.Context) error {
	if r, ok := k.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (k *countedConn) IsValid() bool {
	if v, ok := k.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (k *countedConn) Ping(ctx context.Context) error {
	if p, ok := k.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

type countedTx struct {
	conn *countedConn
	driver.Tx
}

func (t *countedTx) Commit() error {
	t.conn.inTx = false
	err := t.Tx.Commit()
	if err == nil {
		t.conn.c.committed()
	}
	return err
}

func (t *countedTx) Rollback() error {
	t.conn.inTx = false
	return t.Tx.Rollback()
}

// countedStmt counts each execution of a prepared statement.
type countedStmt struct {
	conn *countedConn
	driver.Stmt
	query string
}

func (s *countedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.conn.c.ran(s.query, s.conn.inTx)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	vals, err := values(args)
	if err != nil {
		return nil, err
	}
	return s.Stmt.Exec(vals) //nolint:staticcheck // the driver offers nothing else
}

func (s *countedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.conn.c.ran(s.query, s.conn.inTx)
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	vals, err := values(args)
	if err != nil {
		return nil, err
	}
	return s.Stmt.Query(vals) //nolint:staticcheck // the driver offers nothing else
}

func (s *countedStmt) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return s.conn.CheckNamedValue(v)
}

func values(args []driver.NamedValue) ([]driver.Value, error) {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		if a.Name != "" {
			return nil, errors.New("sqlcount: the driver does not take named arguments")
		}
		out[i] = a.Value
	}
	return out, nil
}
