package pgwire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

func TestErrorResponse(t *testing.T) {
	undefined := sqlerr.New(sqlerr.UndefinedTable, `relation "t" does not exist`).WithPosition(15)
	tests := []struct {
		name string
		err  error
		want pgproto3.ErrorResponse
	}{
		{"plain error", errors.New("disk on fire"),
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "XX000", Message: "disk on fire"}},
		{"sqlerr", undefined,
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "42P01", Message: `relation "t" does not exist`, Position: 15}},
		{"wrapped keeps code and context", fmt.Errorf("planning: %w", undefined),
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "42P01", Message: `planning: relation "t" does not exist`, Position: 15}},
		{"all fields", sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop table t because other objects depend on it").
			WithDetail("view v depends on table t").WithHint("Use DROP ... CASCADE to drop the dependent objects too.").
			WithRoutine("reportDependentObjects"),
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "2BP01",
				Message: "cannot drop table t because other objects depend on it", Detail: "view v depends on table t",
				Hint: "Use DROP ... CASCADE to drop the dependent objects too.", Routine: "reportDependentObjects"}},
		{"fatal", fatal(protocolViolation("invalid message format")),
			pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "08P01", Message: "invalid message format"}},
		{"panic value", errPanic("boom"),
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "XX000", Message: "internal error: boom"}},
		{"panic error", errPanic(errors.New("nil map")),
			pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "XX000", Message: "internal error: nil map"}},
		{"shutdown", errServerShutdown,
			pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errorResponse(tt.err)
			if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
			if isFatal(got) != (tt.want.Severity == "FATAL") {
				t.Errorf("isFatal = %v", isFatal(got))
			}
		})
	}
}
