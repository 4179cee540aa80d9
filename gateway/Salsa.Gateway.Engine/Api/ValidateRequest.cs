using System.Text.Json.Nodes;

namespace Salsa.Gateway.Api;

/// <summary>A workflow to check: YAML and optional parameter overrides.</summary>
public sealed record ValidateRequest(string? Yaml, Dictionary<string, JsonNode?>? Parameters);
