package lineage

import (
	"strings"

	"github.com/celine-eu/governanced/internal/sqlparse"
)

// aggregates reports whether e calls an aggregate outside any subquery: a
// select item that does is no key of GROUP BY ALL. An aggregate is a call
// with an aggregate's name, or with what only aggregates take (DISTINCT,
// FILTER, ORDER BY, WITHIN GROUP), and no OVER. A function not listed is
// taken for a scalar one: its item becomes a key, so its columns count as
// deciding the rows rather than being left out.
func aggregates(e sqlparse.Expr) bool {
	found := false
	sqlparse.Inspect(e, func(n sqlparse.Node) bool {
		switch x := n.(type) {
		case *sqlparse.Query:
			return false
		case *sqlparse.Func:
			if x.Over == nil && (x.Distinct || x.Filter != nil || len(x.OrderBy) > 0 || len(x.WithinGroup) > 0 ||
				aggregateNames[strings.ToLower(x.Name[len(x.Name)-1].Name)]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// aggregateNames are the aggregate functions of the warehouses lineage
// reads (DuckDB, PostgreSQL, Snowflake, BigQuery, Redshift, Databricks).
var aggregateNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`
		any_value approx_count_distinct approx_distinct approx_quantile approx_top_k approx_percentile
		arbitrary arg_max arg_max_null arg_min arg_min_null argmax argmin array_agg array_concat_agg
		array_union_agg array_unique_agg avg bit_and bit_or bit_xor bitstring_agg bool_and bool_or
		booland_agg boolor_agg boolxor_agg collect_list collect_set corr count count_big count_if
		count_star countif covar_pop covar_samp entropy every favg first first_value_agg fsum geomean
		group_concat histogram hll kurtosis kurtosis_pop last list listagg logical_and logical_or
		mad max max_by mean median min min_by mode object_agg percentile_cont percentile_disc product
		quantile quantile_cont quantile_disc regr_avgx regr_avgy regr_count regr_intercept regr_r2
		regr_slope regr_sxx regr_sxy regr_syy reservoir_quantile sem skewness stddev stddev_pop
		stddev_samp string_agg sum sum_if sumkahan var_pop var_samp variance weighted_avg
		json_agg jsonb_agg json_object_agg jsonb_object_agg json_group_array json_group_object
		xmlagg`) {
		m[n] = true
	}
	return m
}()

// rowFunctionRows records what a select item's set-returning calls read
// outside any subquery (Dialect.SetReturning: PostgreSQL's
// jsonb_array_elements, generate_series, DuckDB's and PostgreSQL's
// UNNEST): each value a call yields becomes a row, none drops the row,
// so its arguments decide how many rows there are, as a table function's
// in FROM do. The row signature names the call.
func (sc *scope) rowFunctionRows(e sqlparse.Expr) {
	sqlparse.Inspect(e, func(n sqlparse.Node) bool {
		switch x := n.(type) {
		case *sqlparse.Query:
			return false
		case *sqlparse.Func:
			if x.Over == nil && len(x.Name) == 1 && sc.a.dialect.SetReturning(x.Name[0].Name) {
				sc.predicate("ROWS", x)
				return false
			}
		}
		return true
	})
}
