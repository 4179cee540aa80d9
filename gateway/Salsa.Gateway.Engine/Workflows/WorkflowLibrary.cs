using System.Text.Json.Nodes;
using Microsoft.Extensions.Options;

namespace Salsa.Gateway.Workflows;

/// <summary>A workflow file as listed: its definition, or why it does not load.</summary>
public sealed record WorkflowEntry(string Name, string File, WorkflowDefinition? Definition, IReadOnlyList<WorkflowError> Errors);

/// <summary>
/// The workflows a gateway offers: the <c>*.yaml</c> files of its workflows folder
/// (<c>Gateway:WorkflowsDirectory</c>, else the first <c>workflows/</c> folder found from the current
/// directory or the program's folder upwards — the repository's, when run from a clone).
/// </summary>
public sealed class WorkflowLibrary(WorkflowParser parser, IOptions<GatewayOptions> options)
{
    public const string DirectoryKey = $"{GatewayOptions.Section}:{nameof(GatewayOptions.WorkflowsDirectory)}";

    /// <summary>The folder, or null when there is none.</summary>
    public string? Directory { get; } = Locate(options.Value.WorkflowsDirectory);

    public IReadOnlyList<WorkflowEntry> List()
    {
        if (Directory is null)
        {
            return [];
        }

        return [.. System.IO.Directory.EnumerateFiles(Directory, "*.yaml").Order(StringComparer.Ordinal).Select(file =>
        {
            var name = Path.GetFileNameWithoutExtension(file);
            try
            {
                return new WorkflowEntry(name, file, Parse(File.ReadAllText(file), Path.GetFileName(file), file), []);
            }
            catch (WorkflowValidationException exception)
            {
                return new WorkflowEntry(name, file, null, exception.Errors);
            }
        })];
    }

    /// <summary>A workflow of the folder by name (<c>census-indiana</c>), with parameter overrides.</summary>
    public WorkflowDefinition Load(string name, IReadOnlyDictionary<string, JsonNode?>? parameters = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        if (name.AsSpan().IndexOfAny(['/', '\\']) >= 0 || name.Contains("..", StringComparison.Ordinal) || Directory is null
            || Path.Combine(Directory, name + ".yaml") is var file && !File.Exists(file))
        {
            var known = List().Select(w => w.Name).ToList();
            throw new Salsa.Hosting.Errors.NotFoundException(known.Count == 0
                ? $"No workflow '{name}': this gateway has no workflows folder (set {DirectoryKey})."
                : $"No workflow '{name}' (known: {string.Join(", ", known)}).");
        }

        return Parse(File.ReadAllText(file), Path.GetFileName(file), file, parameters);
    }

    /// <summary>A workflow file anywhere (the CLI's argument).</summary>
    public WorkflowDefinition LoadFile(string path, IReadOnlyDictionary<string, JsonNode?>? parameters = null)
    {
        var full = Path.GetFullPath(path);
        return File.Exists(full)
            ? Parse(File.ReadAllText(full), Path.GetFileName(full), full, parameters)
            : throw new FileNotFoundException($"No workflow file {full}.", full);
    }

    public WorkflowDefinition Parse(string yaml, string origin, string? file, IReadOnlyDictionary<string, JsonNode?>? parameters = null) =>
        parser.Parse(yaml, origin, file, parameters);

    private static string? Locate(string? configured)
    {
        if (!string.IsNullOrWhiteSpace(configured))
        {
            return Path.GetFullPath(configured);
        }

        foreach (var start in new[] { System.IO.Directory.GetCurrentDirectory(), AppContext.BaseDirectory })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "workflows");
                if (System.IO.Directory.Exists(candidate) && System.IO.Directory.EnumerateFiles(candidate, "*.yaml").Any())
                {
                    return candidate;
                }
            }
        }

        return null;
    }
}
