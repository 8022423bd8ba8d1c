// Package repr defines SQL types and values as the SQL layers share
// them: Type (a PostgreSQL base type with its modifiers), Datum (one
// value), the packed Row encoding that dataflows, arrangements and
// storage carry, and PostgreSQL 15's text input and output, casts,
// comparison and arithmetic on datums.
//
// # Glossary
//
//   - Kind: a base type (int4, numeric, ...), without modifiers.
//   - Type: a Kind plus modifiers (varchar(10), numeric(10,2),
//     timestamp(3)); a small comparable value. Its OID, Typlen and
//     Typmod are what RowDescription sends; its String is format_type.
//   - Datum: one value of some Kind, or NULL (the zero Datum).
//   - Row: one []byte holding a row's datums, encoded canonically and
//     order-preservingly (encode.go has the format).
//   - Display scale: the number of fractional digits a numeric prints
//     (PostgreSQL's dscale): 2 for 1.50.
//   - Canonical: the one encoding that all equal values share.
//
// # Invariants
//
//   - Rows of the same column types compare with bytes.Compare exactly
//     as their datums compare with Compare, which is ORDER BY ... ASC
//     NULLS LAST in the C collation; equal values have equal bytes, so
//     hashing, grouping, joining and consolidation work on bytes.
//   - FormatText(ParseText(t, s)) is what PostgreSQL 15 prints for
//     s::t, and ParseText's errors carry PostgreSQL's SQLSTATE and text.
//   - A Datum is immutable: the numeric Decimal it points to is never
//     modified after the Datum is built.
//   - Corrupt rows and other broken invariants are reported with
//     sqlerr.AssertionFailedf: an XX000 error, or a panic in builds
//     with the invariants tag, never a panic of repr's own.
//
// # Choices
//
// Datum is a struct with a kind tag and a few fields, not an interface
// over per-type structs: a []Datum is one allocation, and decoding ints,
// floats, dates, times, timestamps and intervals allocates nothing. Strings and
// numerics allocate (a Go string, an *apd.Decimal).
//
// NULL sorts last, as in PostgreSQL's default ORDER BY ... ASC: its tag
// is above every other. ORDER BY ... DESC (NULLS FIRST) is a reversed
// comparison by the caller. Compare treats NULL as equal to NULL and
// greater than any value; SQL's three-valued comparisons are the
// evaluator's, which must check IsNull before calling Compare.
//
// Numeric display scale. Rows hold numerics in canonical form, without
// trailing zeros, because 1.0 and 1.00 are equal and must have equal
// bytes. The display scale is therefore carried by the type, not by the
// row: decoding a numeric(p,s) column pads it to s digits, as PostgreSQL
// stores it, and decoding unconstrained numeric pads to the display scale
// the type records (Type.WithDisplayScale), which is not part of the
// typmod. ArithType, CastType and EitherType give an expression's type
// the scale PostgreSQL gives its values (numeric_scale.go): a literal
// 1.50 has 2, a product the sum of its operands' scales. A quotient's
// scale depends on its operands' sizes, so its type marks it as one and
// decoding recomputes PostgreSQL's division scale from the value: exact
// but where the operands' leading base-10000 digits are equal (25000/2,
// avg(1.10) = 1.10/1), which the quotient does not show; then it prints
// 4 zeros fewer than PostgreSQL. A table's plain numeric column has no
// display scale: 1.50 stored in it reads back as 1.5. Datums that never
// pass through a row keep their exponent and print exactly as
// PostgreSQL.
//
// Intervals keep their three fields (months, days, microseconds), which
// arithmetic needs ('1 mon' and '30 days' move a timestamp differently).
// PostgreSQL calls '1 mon' and '30 days' equal; here they sort by span
// and then by fields, so they are different keys for GROUP BY, DISTINCT
// and joins. CompareIntervals gives PostgreSQL's comparison for the SQL
// operators. Likewise char(n) values are encoded without their padding,
// which decoding restores from the type's length.
//
// The session is assumed to run with DateStyle ISO, MDY, IntervalStyle
// postgres, extra_float_digits 1 and TimeZone UTC: timestamptz prints
// with "+00", and conversions between timestamp and timestamptz keep the
// instant's microseconds.
//
// # Imports
//
// repr imports only the standard library, freshet/sqlerr and
// github.com/cockroachdb/apd/v3. It must not import expr, planner,
// catalog or anything above it: every SQL layer imports repr.
package repr
