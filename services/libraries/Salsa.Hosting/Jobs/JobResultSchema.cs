using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Salsa.Hosting.Jobs;

/// <summary>
/// Makes <see cref="JobView.Result"/> unambiguous in a service's OpenAPI document: one of the
/// results this service's jobs give — the schemas its <c>…/jobs/{id}/result</c> operations return —
/// or null while the job has not succeeded. (In C# it is a <c>JsonNode</c>: one job list serves
/// every kind of job.)
/// </summary>
internal sealed class JobResultSchema : IOpenApiDocumentTransformer
{
    public Task TransformAsync(OpenApiDocument document, OpenApiDocumentTransformerContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(document);
        if (document.Components?.Schemas?.TryGetValue(nameof(JobView), out var view) != true || view is not OpenApiSchema { Properties: { } properties })
        {
            return Task.CompletedTask;
        }

        var results = document.Paths
            .Where(p => p.Key.EndsWith("/result", StringComparison.Ordinal))
            .SelectMany(p => p.Value.Operations?.Values.AsEnumerable() ?? [])
            .Select(o => o.Responses is { } responses && responses.TryGetValue("200", out var ok) && ok.Content is { } content
                && content.TryGetValue("application/json", out var json) ? json.Schema : null)
            .OfType<OpenApiSchemaReference>()
            .Select(r => r.Reference.Id)
            .OfType<string>()
            .Distinct(StringComparer.Ordinal)
            .Order(StringComparer.Ordinal)
            .ToList();
        var key = properties.Keys.FirstOrDefault(k => string.Equals(k, "result", StringComparison.OrdinalIgnoreCase)) ?? "result";
        properties[key] = new OpenApiSchema
        {
            Description = results.Count == 0
                ? "The job's result once it succeeded (null before); this service runs no job with a typed result."
                : $"The job's result once it succeeded — what GET …/jobs/{{id}}/result of its kind returns: {string.Join(", ", results)} — and null before.",
            OneOf = [.. results.Select(id => (IOpenApiSchema)new OpenApiSchemaReference(id, document)), new OpenApiSchema { Type = JsonSchemaType.Null }],
        };
        return Task.CompletedTask;
    }
}
