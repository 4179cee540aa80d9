using System.Text.Json.Serialization;

namespace Salsa.Bench.Harness;

/// <summary>
/// One measured figure. <see cref="Case"/> is a comma-separated <c>key=value</c> list naming the
/// configuration; <see cref="Metric"/> is snake_case with its unit in <see cref="Unit"/>.
/// </summary>
public sealed record ResultRow(
    [property: JsonPropertyName("case")] string Case,
    [property: JsonPropertyName("metric")] string Metric,
    [property: JsonPropertyName("value")] double Value,
    [property: JsonPropertyName("unit")] string Unit);
