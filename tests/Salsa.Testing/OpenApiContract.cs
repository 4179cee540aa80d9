using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Salsa.Testing;

/// <summary>
/// The committed REST contract: <c>openapi/&lt;service&gt;.json</c> is what the running service's
/// <c>/openapi/v1.json</c> must be, but for <c>servers</c> (the address it happens to listen on).
/// With <c>SALSA_UPDATE_OPENAPI=1</c> the running document is written there instead of compared — a
/// change made on purpose, which <c>tools/optic/check</c> then judges against the last release.
/// </summary>
public static class OpenApiContract
{
    public const string UpdateVariable = "SALSA_UPDATE_OPENAPI";

    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static string PathOf(string service) => Path.Combine(Repository.Root, "openapi", service + ".json");

    /// <summary>The running document as it is committed: <c>servers</c> dropped, indented, one newline at the end.</summary>
    public static string Canonical(string runningDocument)
    {
        var document = JsonNode.Parse(runningDocument)!.AsObject();
        document.Remove("servers");
        return document.ToJsonString(Indented).ReplaceLineEndings("\n") + "\n";
    }

    /// <summary>
    /// Null when the running document is the committed one; otherwise what differs, for the failure
    /// message (the first differing line of each, and how to update the contract on purpose).
    /// </summary>
    public static string? Difference(string service, string runningDocument)
    {
        var running = Canonical(runningDocument);
        var path = PathOf(service);
        if (Environment.GetEnvironmentVariable(UpdateVariable) == "1")
        {
            File.WriteAllText(path, running);
            return null;
        }

        var committed = File.Exists(path) ? File.ReadAllText(path).ReplaceLineEndings("\n") : "";
        if (committed == running)
        {
            return null;
        }

        var left = committed.Split('\n');
        var right = running.Split('\n');
        var line = 0;
        while (line < left.Length && line < right.Length && left[line] == right[line])
        {
            line++;
        }

        return $"openapi/{service}.json differs from the running {service} service's document at line {line + 1}:\n" +
            $"  committed: {(line < left.Length ? left[line].Trim() : "(end)")}\n  running:   {(line < right.Length ? right[line].Trim() : "(end)")}\n" +
            $"A change on purpose: {UpdateVariable}=1 dotnet test … writes the running documents to openapi/, and tools/optic/check judges them against the last release.";
    }
}
