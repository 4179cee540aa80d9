using Salsa.Contracts.Operations;
using Salsa.Hosting;

namespace Salsa.Operations;

/// <summary>Every operation a workflow step can name, under a service's limits.</summary>
public static class WorkflowOperations
{
    /// <summary>The operations of every service, their configured bounds from <paramref name="limits"/>.</summary>
    public static IReadOnlyList<OperationSpec> All(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        return
        [
            .. CensusOperations.Describe(limits),
            .. ChemOperations.Describe(),
            .. AnnealingOperations.Describe(limits),
            .. KMeansOperations.Describe(limits),
            .. FingerprintsOperations.Describe(limits),
            .. MdsOperations.Describe(limits),
            .. RenderOperations.Describe(limits),
        ];
    }
}
