using System.Globalization;
using System.Text.Json.Nodes;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Salsa.Hosting.Errors;

/// <summary>
/// Declares in every service's OpenAPI document what its REST operations answer besides success,
/// so client generators and fuzzers need not guess: the ProblemDetails responses each kind of
/// operation can give (the statuses of <see cref="ServiceErrors"/>, 401, 403 and 429), the
/// credentials it takes (API key or bearer token) and the format of ids.
/// </summary>
internal sealed class ProblemResponses : IOpenApiDocumentTransformer
{
    private const string ProblemJson = "application/problem+json";
    private const string SchemaName = "ProblemDetails";
    private const string ApiKeyScheme = "ApiKey";
    private const string BearerScheme = "Bearer";

    public Task TransformAsync(OpenApiDocument document, OpenApiDocumentTransformerContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(document);
        document.AddComponent(SchemaName, Schema());
        var problem = new OpenApiSchemaReference(SchemaName, document);
        document.AddComponent<IOpenApiSecurityScheme>(ApiKeyScheme, new OpenApiSecurityScheme
        {
            Type = SecuritySchemeType.ApiKey,
            In = ParameterLocation.Header,
            Name = Security.CredentialHeaders.Key,
            Description = "An API key (salsa_…), made with `keys create` or POST /api/keys; also accepted as `Authorization: ApiKey <key>`.",
        });
        document.AddComponent<IOpenApiSecurityScheme>(BearerScheme, new OpenApiSecurityScheme
        {
            Type = SecuritySchemeType.Http,
            Scheme = "bearer",
            BearerFormat = "JWT",
            Description = "A token from the identity provider named in Salsa:Auth:Jwt, with claims tenant and scope.",
        });
        var security = new List<OpenApiSecurityRequirement>
        {
            new() { [new OpenApiSecuritySchemeReference(ApiKeyScheme, document)] = [] },
            new() { [new OpenApiSecuritySchemeReference(BearerScheme, document)] = [] },
        };
        foreach (var (path, item) in document.Paths)
        {
            if (!path.StartsWith("/api/", StringComparison.Ordinal) || item.Operations is null)
            {
                continue;
            }

            foreach (var (method, operation) in item.Operations)
            {
                operation.Security = security;
                Describe(path, method, operation, problem);
            }
        }

        return Task.CompletedTask;
    }

    private static void Describe(string path, HttpMethod method, OpenApiOperation operation, OpenApiSchemaReference problem)
    {
        var hasBody = operation.RequestBody is not null;
        var hasId = path.Contains('{', StringComparison.Ordinal);
        var startsWork = method == HttpMethod.Post && (operation.Responses?.ContainsKey("202") == true || path == "/api/runs");
        foreach (var parameter in operation.Parameters ?? [])
        {
            if (parameter.In == ParameterLocation.Path && parameter.Name is "id" && parameter.Schema is OpenApiSchema schema)
            {
                schema.Format = "uuid";
            }
        }

        operation.Responses ??= [];
        if (hasBody || hasId || operation.Parameters is { Count: > 0 })
        {
            Add(operation, 400, "The request is not valid: malformed JSON or id, a missing or unknown member, a value out of range (the detail names it).", problem);
        }

        if (hasId)
        {
            Add(operation, 404, "No such id (the detail names it).", problem);
        }
        else if (NamesAnId(operation.RequestBody))
        {
            Add(operation, 404, "An id the body names (a dataset, a job) names nothing of the caller's (the detail names it).", problem);
        }
        else if (HasMember(operation.RequestBody, "workflow"))
        {
            Add(operation, 404, "The workflow the body names is not one of the gateway's workflows (the detail names it).", problem);
        }

        if (method == HttpMethod.Get && (path.EndsWith("/result", StringComparison.Ordinal) || path.Contains("/artifacts/", StringComparison.Ordinal)))
        {
            Add(operation, 409, "The job has not succeeded (yet): it has no result or file.", problem);
        }

        if (method == HttpMethod.Delete)
        {
            Add(operation, 409, "In use: a queued or running job or run uses it (the detail names which).", problem);
        }

        if (hasBody)
        {
            Add(operation, 413, "Over a configured limit: the body's size, or a value beyond the service's limits (the detail names the configuration key).", problem);
            Add(operation, 415, "The body is not of a media type the operation reads.", problem);
        }

        // Whenever the service asks for credentials (it listens beyond loopback, or Salsa:Auth:Mode is On).
        Add(operation, 401, "No valid credentials: an API key (X-Api-Key) or a bearer token is missing, unknown, revoked or expired.", problem);
        Add(operation, 403, "The credentials lack the scope this operation needs (read, run or admin; the detail names it).", problem);
        Add(operation, 429, startsWork
            ? "The job queue is full, or these credentials exceeded their rate limit: try again after the Retry-After header's seconds."
            : "These credentials exceeded their rate limit: try again after the Retry-After header's seconds.", problem);
    }

    private static bool HasMember(IOpenApiRequestBody? body, string member) => AnyMember(body, name => name == member);

    // A JSON body with a member that is an id (datasetId, jobId, …): the operation looks it up.
    private static bool NamesAnId(IOpenApiRequestBody? body) => AnyMember(body, name => name.EndsWith("Id", StringComparison.Ordinal));

    private static bool AnyMember(IOpenApiRequestBody? body, Func<string, bool> member) =>
        body?.Content?.Values.Any(media => media.Schema?.Properties?.Keys.Any(member) == true) == true;

    private static void Add(OpenApiOperation operation, int status, string description, OpenApiSchemaReference problem) =>
        operation.Responses!.TryAdd(status.ToString(CultureInfo.InvariantCulture), new OpenApiResponse
        {
            Description = description,
            Content = new Dictionary<string, OpenApiMediaType> { [ProblemJson] = new() { Schema = problem } },
        });

    // RFC 9457 problem details as the services write them (ServiceErrors, the status-code pages).
    private static OpenApiSchema Schema() => new()
    {
        Type = JsonSchemaType.Object,
        Description = "RFC 9457 problem details.",
        Properties = new Dictionary<string, IOpenApiSchema>
        {
            ["type"] = new OpenApiSchema { Type = JsonSchemaType.String, Format = "uri-reference" },
            ["title"] = new OpenApiSchema { Type = JsonSchemaType.String },
            ["status"] = new OpenApiSchema { Type = JsonSchemaType.Integer, Format = "int32" },
            ["detail"] = new OpenApiSchema { Type = JsonSchemaType.String, Description = "What was wrong, naming the parameter or limit." },
            ["instance"] = new OpenApiSchema { Type = JsonSchemaType.String },
            ["traceId"] = new OpenApiSchema { Type = JsonSchemaType.String },
        },
        AdditionalProperties = new OpenApiSchema(),
        Examples = [JsonNode.Parse("""{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"Invalid request","status":400,"detail":"maxIterationsPerTemperature must be at least 1; it is -1. (Parameter 'maxIterationsPerTemperature')"}""")!],
    };
}
