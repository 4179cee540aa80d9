using System.Text.Json;

namespace Salsa.Clustering;

/// <summary>
/// An option as requests spell it — camelCase, as the REST bodies and workflow parameters do
/// (<c>MaxIterationsPerTemperature</c> → <c>maxIterationsPerTemperature</c>) — so a validation
/// message names the parameter the caller actually sent.
/// </summary>
public static class RequestNames
{
    public static string Of(string property) => JsonNamingPolicy.CamelCase.ConvertName(property);

    /// <summary>A refusal naming one parameter: "<paramref name="property"/> must …" with the parameter's request name.</summary>
    public static ClusteringInputException Invalid(string property, string rule) =>
        new($"{Of(property)} {rule}", Of(property));
}
