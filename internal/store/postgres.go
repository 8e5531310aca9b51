package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

func openPostgres(t *dsnTarget, c config) (*sql.DB, error) {
	pc, err := pgx.ParseConfig(t.url)
	if err != nil {
		return nil, err
	}
	if _, ok := pc.RuntimeParams["timezone"]; !ok {
		pc.RuntimeParams["timezone"] = "UTC"
	}
	db := stdlib.OpenDB(*pc, stdlib.OptionAfterConnect(scanTimesInUTC))
	c.applyPool(db)
	return db, nil
}

// scanTimesInUTC makes timestamptz values come back in UTC, as they do from
// SQLite, rather than in the process's local zone.
func scanTimesInUTC(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{
		Name:  "timestamptz",
		OID:   pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
	})
	return nil
}
