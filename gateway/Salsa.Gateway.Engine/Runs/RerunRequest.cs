using System.Text.Json.Nodes;

namespace Salsa.Gateway.Runs;

/// <summary>A re-run: changes to the recorded parameters (a null value drops an override, so the workflow's default applies).</summary>
public sealed record RerunRequest(Dictionary<string, JsonNode?>? Parameters);
