using Salsa.Contracts.Clients;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using Salsa.Hosting.Clustering.Annealing;

namespace Salsa.Annealing;

/// <summary>The annealing service's workflow operation: deterministic annealing of weighted points.</summary>
internal static class AnnealingOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits) =>
    [
        AnnealingOperation.Describe(AnnealingService.Name, "cluster", ValueTypes.Points, "Deterministic-annealing clustering of weighted points.", limits,
            (invoker, request, options) => new AnnealingClient(invoker).StartAsync(request, options),
            (invoker, job, options) => new AnnealingClient(invoker).GetResultAsync(job, options)),
    ];
}
