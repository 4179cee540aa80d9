using System.Collections.Concurrent;
using System.Text;
using System.Text.Json.Nodes;
using Salsa.Gateway.Catalog;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// A workflow's YAML (the format of <c>workflows/workflow.schema.json</c>) read and checked against
/// the operations the services offer, in three steps: what it would cost to build
/// (<see cref="YamlBudget"/>), what it says (<see cref="WorkflowReader"/>: the shape of every key),
/// and whether that makes sense (<see cref="WorkflowChecker"/>: services, operations, inputs,
/// parameters, wiring, cycles). Every problem found is reported with its line and column.
/// Reading is nine tenths of the time and depends on the text alone, so texts read without an error
/// are remembered (<see cref="RememberedTexts"/> of up to <see cref="RememberedLength"/> characters):
/// a workflow submitted again, as a console or script does, is only checked.
/// </summary>
public sealed class WorkflowParser(OperationCatalog catalog, WorkflowLimits? limits = null)
{
    /// <summary>How many read texts are remembered; past it the memory starts afresh, so it stays bounded whatever callers send.</summary>
    public const int RememberedTexts = 256;

    /// <summary>The longest text remembered, in characters (the shipped workflows are about 2,000).</summary>
    public const int RememberedLength = 16 * 1024;

    private readonly WorkflowLimits _limits = limits ?? new WorkflowLimits();

    // Read-only once built (the checker only looks at the nodes), so runs on any thread share them.
    private readonly ConcurrentDictionary<string, WorkflowText> _read = new(StringComparer.Ordinal);

    /// <summary>
    /// Parses and validates, or throws <see cref="WorkflowValidationException"/> listing every error
    /// (<see cref="LimitExceededException"/> for a workflow beyond <see cref="WorkflowLimits"/>).
    /// Time and memory grow linearly with the workflow's size.
    /// </summary>
    /// <param name="yaml">The workflow's text.</param>
    /// <param name="origin">What errors call it: the file name, or <c>inline</c>.</param>
    /// <param name="file">The file's full path, or null when inline.</param>
    /// <param name="overrides">Parameter values that replace the written ones, keyed <c>step.parameter</c>.</param>
    public WorkflowDefinition Parse(string yaml, string origin, string? file = null, IReadOnlyDictionary<string, JsonNode?>? overrides = null)
    {
        ArgumentNullException.ThrowIfNull(yaml);
        var bytes = Encoding.UTF8.GetByteCount(yaml);
        if (bytes > _limits.MaxBytes)
        {
            throw Beyond($"{origin} is {bytes:N0} bytes of YAML", _limits.MaxBytes, "bytes", nameof(WorkflowLimits.MaxBytes));
        }

        var errors = new List<WorkflowError>();
        if (!_read.TryGetValue(yaml, out var workflow))
        {
            workflow = WorkflowReader.Read(yaml, origin, _limits, errors) ?? throw new WorkflowValidationException(origin, errors);
            if (errors.Count == 0 && yaml.Length <= RememberedLength)
            {
                if (_read.Count >= RememberedTexts)
                {
                    _read.Clear();
                }

                _read[yaml] = workflow;
            }
        }

        var (steps, order) = new WorkflowChecker(catalog, _limits).Check(workflow, origin, overrides, errors, file is null ? null : Path.GetDirectoryName(Path.GetFullPath(file)));
        if (errors.Count > 0)
        {
            throw new WorkflowValidationException(origin, [.. errors.Distinct().OrderBy(e => e.Line).ThenBy(e => e.Column)]);
        }

        return new WorkflowDefinition { Name = workflow.Name, Description = workflow.Description, Steps = steps, Order = order, Yaml = yaml, File = file };
    }

    /// <summary>How many read texts are remembered now.</summary>
    internal int Remembered => _read.Count;

    /// <summary>A workflow beyond one of <see cref="WorkflowLimits"/>: what it was, the limit and the key that sets it.</summary>
    internal static LimitExceededException Beyond(string what, int limit, string unit, string key) =>
        new($"{what}: over this gateway's limit of {limit:N0} {unit} ({WorkflowLimits.Section}:{key}).");
}
