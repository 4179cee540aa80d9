using System.Security.Cryptography;
using System.Text;
using System.Text.Json.Nodes;

namespace Salsa.Gateway.Runs;

/// <summary>What a run was asked to run: kept with it so a restarted gateway can resume it, and a re-run repeat it.</summary>
public sealed record RunRequestRecord(string Workflow, string Yaml, string? File, IReadOnlyDictionary<string, JsonNode?> Parameters)
{
    /// <summary>The first 12 hex digits of the SHA-256 of the workflow's text.</summary>
    public string Version => Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(Yaml)))[..12];
}
