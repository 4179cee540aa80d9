using Salsa.Contracts.Operations;
using Salsa.Hosting;
using Salsa.Operations;

namespace Salsa.Gateway.Catalog;

/// <summary>
/// Every operation a workflow step can name (Salsa.Operations: the services' client side) —
/// parameters with the services' bounds under these limits, inputs, outputs, files, and the typed
/// calls that perform them. The JSON Schema and docs/workflows.md are printed from this catalog.
/// </summary>
public sealed class OperationCatalog
{
    private readonly Dictionary<string, OperationSpec> _operations;

    /// <summary>The catalog under <paramref name="limits"/> (the defaults when null, as the committed schema and docs are).</summary>
    public OperationCatalog(ServiceLimits? limits = null)
    {
        limits ??= new ServiceLimits();
        _operations = WorkflowOperations.All(limits).ToDictionary(o => o.Key, StringComparer.Ordinal);
    }

    public IReadOnlyCollection<OperationSpec> Specifications => _operations.Values;

    public IReadOnlyList<string> Services => [.. _operations.Values.Select(o => o.Service).Distinct().Order(StringComparer.Ordinal)];

    public IReadOnlyList<OperationSpec> Operations(string service) => [.. _operations.Values.Where(o => o.Service == service)];

    public OperationSpec? Find(string service, string operation) => _operations.GetValueOrDefault($"{service}.{operation}");
}
