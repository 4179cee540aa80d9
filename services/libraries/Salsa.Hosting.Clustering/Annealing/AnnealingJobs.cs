using System.Globalization;
using Microsoft.Extensions.Options;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;
using AnnealingResult = Salsa.Contracts.Annealing.AnnealingResult; // the message; the algorithm's result is Salsa.Clustering's

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>Deterministic annealing as jobs: dense or binary input, progress after each temperature.</summary>
/// <remarks>With <c>Cluster:Enabled</c>, dense datasets are annealed on the grid (<see cref="GridCompute"/>); binary ones stay here.</remarks>
public sealed class AnnealingJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits, GridCompute? grid = null)
    : VectorClusteringJobs<StartAnnealingRequest, AnnealingOptions, AnnealingResult>(jobs, datasets, limits)
{
    public override string Kind => "annealing";

    protected override ClusteringResult ClusteringOf(AnnealingResult result) => result.Clustering;

    protected override string DatasetOf(StartAnnealingRequest request) => request.DatasetId;

    /// <summary>The request's parameters over the algorithm's defaults; cooling stops after <see cref="ServiceLimits.MaxTemperatures"/> temperatures.</summary>
    protected override AnnealingOptions OptionsOf(StartAnnealingRequest request, ParallelismOptions parallel) =>
        RequestParameters.Bind(request, new AnnealingOptions { MaxTemperatures = Limits.MaxTemperatures, Parallel = parallel });

    protected override void Validate(AnnealingOptions options, int points) => options.Validate(points);

    protected override void CheckLimits(AnnealingOptions options)
    {
        var from = options.StartTemperature is { } start ? start.ToString("R", CultureInfo.InvariantCulture) : "the start temperature";
        var to = options.MinTemperature is { } min ? min.ToString("R", CultureInfo.InvariantCulture) : "10⁻⁶ of it";
        Limits.CheckTemperatures(options.ScheduledTemperatures(), string.Create(CultureInfo.InvariantCulture, $"coolingFactor {options.CoolingFactor:R} from {from} down to {to}"));
    }

    protected override async Task<(int[] Assignments, AnnealingResult Result)> ClusterAsync(AnnealingOptions options, DatasetInfo info, VectorInput input, JobContext context)
    {
        if (grid is null || input.Dense is null)
        {
            return Cluster(options, info, input, context);
        }

        var (result, placement) = await grid.AnnealAsync(context, info.Id, info.Count, options).ConfigureAwait(false);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count, placement));
    }

    protected override (int[] Assignments, AnnealingResult Result) Cluster(AnnealingOptions options, DatasetInfo info, VectorInput input, JobContext context)
    {
        var result = input.Dense is { } dense
            ? DeterministicAnnealing.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : DeterministicAnnealing.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count));
    }
}
