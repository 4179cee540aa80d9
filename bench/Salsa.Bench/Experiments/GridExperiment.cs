using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Jobs;
using Salsa.Grid.Partitions;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Bench.Experiments;

/// <summary>
/// The machine level on Orleans: silos as separate processes on this machine (sharing its cores, so
/// this measures overhead, not speed-up), joined through PostgreSQL. Per silo count, the time of one
/// DA iteration on the national census at K = 100 (an E-step sent down the fan-in tree of silos to a
/// fixed grid of partitions and added in the reduction tree's order) split into the busiest silo's compute and the
/// coordinator's messaging, beside the same grid in this process; whether a DA job and the iteration's sums are bit-identical to the grid
/// computed in one process; and the time to recover from a silo killed mid-job.
/// </summary>
public sealed class GridExperiment : IExperiment
{
    private const int Partitions = 12;
    private const int Clusters = 100;

    public string Name => "grid";

    public string Description => "Orleans silos (1, 2, 3 processes): DA iteration time at K = 100 on the national census, messaging, bit-identity with one node, recovery from a killed silo; a k-means job on the same grid; messaging on 1–16 silo processes down the fan-in tree and as a star beside MPI_Allreduce, and the model of 8, 32 and 128 machines fitted on it.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var census = KernelData.Census();
        var data = context.Quick ? KernelData.Prefix(census, 60_000) : census;
        // A DA job long enough to split into many clusters and to be interrupted, short enough to run
        // five times (reference, three topologies, the fault): its bits are what is compared.
        var job = new AnnealingOptions { MaxClusters = Clusters, CoolingFactor = 0.85, MaxTemperatures = context.Quick ? 14 : 20, SplitMergeAttempts = 2, FinalRefinementIterations = 30 };
        var repeats = context.Quick ? 15 : 40;
        using var grid = new LocalPartitions(data, Partitions, new ParallelismOptions());
        var pass = EStep(data);
        var referenceSums = grid.Reduce(pass, cancellationToken);

        // Timed on partitions as fresh as the silos' (before the jobs below leave their assignments
        // in them: the sparse E-step's window follows them, so the same pass costs less afterwards).
        var inProcess = new List<double>();
        for (var warm = WarmUp.ForShortPasses(context.Quick); inProcess.Count < repeats;)
        {
            var clock = Stopwatch.StartNew();
            grid.Reduce(pass, cancellationToken);
            if (warm.Over())
            {
                inProcess.Add(clock.Elapsed.TotalMicroseconds);
            }
        }
        var annealingClock = Stopwatch.StartNew();
        var referenceJob = DeterministicAnnealing.Run(grid, job, cancellationToken: cancellationToken);
        var annealingInProcess = annealingClock.Elapsed.TotalSeconds;
        var kmeans = new KMeansOptions { Clusters = Clusters, Restarts = 1, MaxIterations = context.Quick ? 10 : 30, Seed = 3 };
        // Twice, as on the silos: a process's first k-means job compiles its code (the JIT), the next one does not.
        var kmeansClock = Stopwatch.StartNew();
        var referenceKMeans = WeightedKMeans.Run(grid, kmeans, cancellationToken: cancellationToken);
        var firstKMeans = kmeansClock.Elapsed.TotalSeconds;
        kmeansClock.Restart();
        WeightedKMeans.Run(grid, kmeans, cancellationToken: cancellationToken);
        var kmeansJobs = new Dictionary<int, (double First, double Seconds, double ComputeUs, double MessagingUs, bool Identical)> { [0] = (firstKMeans, kmeansClock.Elapsed.TotalSeconds, 0, 0, true) };

        // Indiana as census-indiana runs it (populated block groups, Kmax 20, the service's grid for
        // its size): a job of a tenth of a second, where what a silo adds per job shows most. Twice
        // per side, as k-means: the first job in a process compiles its code.
        var indiana = KernelData.Census(Salsa.DataFiles.CensusBlockGroups.IndianaPath, skipUnpopulated: true);
        var indianaPartitions = new Salsa.Hosting.Clustering.Grid.PartitionLayout().PartitionsFor(indiana.Count);
        var indianaJob = new AnnealingOptions { MaxClusters = 20 };
        var indianaId = Guid.NewGuid();
        AnnealingResult indianaReference;
        var indianaJobs = new Dictionary<int, (double First, double Seconds, bool Identical)>();
        using (var indianaGrid = new LocalPartitions(indiana, indianaPartitions, new ParallelismOptions()))
        {
            var (first, next, _) = await ClusterJobs.TimeJobsAsync(
                () => Task.FromResult(DeterministicAnnealing.Run(indianaGrid, indianaJob, cancellationToken: cancellationToken)), ShortJobs(context.Quick), JobRepeats(context.Quick));
            indianaReference = first.Result;
            indianaJobs[0] = (first.Seconds, next, true);
        }

        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var connectionString = await postgres.CreateDatabaseAsync("cluster", cancellationToken);
        var datasetId = Guid.NewGuid();
        var dataLabel = context.Quick ? "census-60k" : "census-us";
        var iterations = new Dictionary<int, (double Wall, double Compute, double Messaging)> { [0] = (Statistics.Median(inProcess), Statistics.Median(inProcess), 0) };
        context.Add(string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos=0"), "seconds_per_iteration", iterations[0].Wall / 1e6, "s");
        foreach (var silos in new[] { 1, 2, 3 })
        {
            await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, silos, cancellationToken);
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {silos} silo(s) quiet {cluster.SettledAfter.TotalSeconds:F0} s after they started"));
            if (silos == 1)
            {
                await StoreAsync(cluster.Client, datasetId, data, cancellationToken);
                await StoreAsync(cluster.Client, indianaId, indiana, cancellationToken);
                var (first, next, allSame) = await ClusterJobs.TimeJobsAsync(
                    async () => (await ClusterJobs.AnnealAsync(cluster.Grains, indianaId, indianaPartitions, indianaJob, cancellationToken)).Result,
                    ShortJobs(context.Quick), JobRepeats(context.Quick), result => ClusterJobs.SameBits(indianaReference, result));
                indianaJobs[1] = (first.Seconds, next, allSame);
            }

            var keys = PartitionKey.Grid(datasetId, Partitions).Select(k => cluster.Grains.GetGrain<IPartitionGrain>(k.ToGrainKey())).ToArray();
            await Task.WhenAll(keys.Select(k => k.InfoAsync()));
            var identical = true;

            // The floor: a grain call that computes nothing (a partition's info), one at a time.
            var roundTrips = new List<double>();
            for (var r = -20; r < 200; r++)
            {
                var clock = Stopwatch.StartNew();
                await keys[0].InfoAsync();
                if (r >= 0)
                {
                    roundTrips.Add(clock.Elapsed.TotalMicroseconds);
                }
            }

            // A pass carried to a silo and answered with nothing computed (the silo's pass grain asked
            // for no partitions): the pass's own travel, without the compute before the answer.
            var firstSilo = (await keys[0].InfoAsync()).Silo;
            var emptyPasses = new List<double>();
            for (var r = -20; r < 200; r++)
            {
                var clock = Stopwatch.StartNew();
                await cluster.Grains.GetGrain<ISiloPassGrain>(firstSilo).RunAsync(pass, new SiloPassPlan(firstSilo, datasetId, Partitions, [], [], TimeSpan.FromMinutes(1)));
                if (r >= 0)
                {
                    emptyPasses.Add(clock.Elapsed.TotalMicroseconds);
                }
            }

            var roundTripCase = string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos={silos}");
            context.Add(roundTripCase, "call_round_trip_us", Statistics.Median(roundTrips), "µs");
            context.Add(roundTripCase, "empty_pass_round_trip_us", Statistics.Median(emptyPasses), "µs");

            // The pass as a job's coordinator sends it: one call per silo, each silo computing its
            // partitions and answering with their sums (GrainPartitions, the per-silo fold).
            var silosGrid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, Partitions, TimeSpan.FromMinutes(2), cancellationToken), cancellationToken);
            var walls = new List<double>();
            var computes = new List<double>();
            var turns = new List<double>();
            var waysIn = new List<double>();
            var waysBack = new List<double>();
            for (var warm = WarmUp.ForShortPasses(context.Quick); walls.Count < repeats;)
            {
                var before = silosGrid.Statistics;
                var clock = Stopwatch.StartNew();
                var sums = await Task.Run(() => silosGrid.Reduce(pass, cancellationToken), cancellationToken);
                var wall = clock.Elapsed.TotalMicroseconds;
                identical &= ClusterJobs.SameBits(referenceSums, sums);
                if (warm.Over())
                {
                    walls.Add(wall);
                    computes.Add(silosGrid.Statistics.ComputeMicroseconds - before.ComputeMicroseconds);
                    turns.Add(silosGrid.LastSiloTurnMicroseconds);
                    waysIn.Add(silosGrid.LastSiloTravelMicroseconds.WayIn);
                    waysBack.Add(silosGrid.LastSiloTravelMicroseconds.WayBack);
                }
            }

            // Beside it, the pass as one call per partition (the design before the per-silo fold).
            var partitionWalls = new List<double>();
            var partitionComputes = new List<double>();
            for (var warm = WarmUp.ForShortPasses(context.Quick); partitionWalls.Count < repeats;)
            {
                var clock = Stopwatch.StartNew();
                var sums = await Task.WhenAll(keys.Select(k => k.RunAsync(pass)));
                var wall = clock.Elapsed.TotalMicroseconds;
                identical &= ClusterJobs.SameBits(referenceSums, DensePartition.Fold([.. sums.Select(s => s.Sums)]));
                if (warm.Over())
                {
                    partitionWalls.Add(wall);
                    partitionComputes.Add(SiloTurn.CriticalCompute(sums.Select((s, i) => s.AsTurn(i))));
                }
            }

            var jobClock = Stopwatch.StartNew();
            var (jobView, jobResult) = await ClusterJobs.AnnealAsync(cluster.Grains, datasetId, Partitions, job, cancellationToken);
            var jobSeconds = jobClock.Elapsed.TotalSeconds;
            identical &= ClusterJobs.SameBits(referenceJob, jobResult);
            var firstJob = await KMeansJobAsync(cluster.Grains, datasetId, kmeans, referenceKMeans, cancellationToken);
            var nextJob = await KMeansJobAsync(cluster.Grains, datasetId, kmeans, referenceKMeans, cancellationToken);
            kmeansJobs[silos] = (firstJob.Seconds, nextJob.Seconds, nextJob.ComputeUs, nextJob.MessagingUs, firstJob.Identical && nextJob.Identical);
            var (wallUs, computeUs) = (Statistics.Median(walls), Statistics.Median(computes));
            var messagingUs = Statistics.Median([.. walls.Zip(computes, (w, c) => Math.Max(0, w - c))]);
            iterations[silos] = (wallUs, computeUs, messagingUs);
            var @case = string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos={silos}");
            context.Add(@case, "seconds_per_iteration", wallUs / 1e6, "s");
            context.Add(@case, "compute_us", computeUs, "µs");
            context.Add(@case, "messaging_us", messagingUs, "µs");
            // Where messaging goes: the calls' travel (wall less the longest silo turn) and the silos'
            // own overhead around their compute (the turn less the compute).
            context.Add(@case, "travel_us", Statistics.Median([.. walls.Zip(turns, (w, t) => Math.Max(0, w - t))]), "µs");
            context.Add(@case, "travel_in_us", Statistics.Median(waysIn), "µs");
            context.Add(@case, "travel_back_us", Statistics.Median(waysBack), "µs");
            context.Add(@case, "silo_overhead_us", Statistics.Median([.. turns.Zip(computes, (t, c) => Math.Max(0, t - c))]), "µs");
            var perPartitionMessagingUs = Statistics.Median([.. partitionWalls.Zip(partitionComputes, (w, c) => Math.Max(0, w - c))]);
            context.Add(@case, "messaging_us_call_per_partition", perPartitionMessagingUs, "µs");
            context.Add(@case, "job_messaging_us_per_pass", jobView.Passes.MessagingMicroseconds / Math.Max(1, jobView.Passes.Passes), "µs");
            // The whole DA job (coordinator on a silo, its partitions there computed in place) against
            // the same grid in this process; the job's time as its client sees it, start to result.
            var annealingCase = string.Create(CultureInfo.InvariantCulture, $"algorithm=annealing,data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos={silos}");
            context.Add(annealingCase, "seconds_per_job", jobSeconds, "s");
            context.Add(annealingCase, "ratio_to_in_process", jobSeconds / annealingInProcess, "×");
            context.Add(@case, "identical_to_single_node", identical ? 1 : 0, "bool");
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  silos={silos}: {wallUs / 1000:F2} ms per iteration, busiest silo computing {computeUs / 1000:F2} ms, messaging {messagingUs:F0} µs, identical {identical}"));
        }

        // The floor a pass's messaging is held to: Open MPI's MPI_Allreduce of the same sums (K × (D + 1)
        // doubles) among as many processes as silos, over TCP on the same loopback.
        if (Peers.BuildError is { } mpiMissing)
        {
            context.Console.WriteLine($"  (Open MPI allreduce not measured: {mpiMissing})");
        }
        else
        {
            foreach (var silos in new[] { 2, 3 })
            {
                var mpi = Peers.RunJson("mpirun",
                    ["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "tcp,self", "-np", silos.ToString(CultureInfo.InvariantCulture),
                     Peers.PathOf("allreduce"), (Clusters * 3).ToString(CultureInfo.InvariantCulture), context.Quick ? "2000" : "20000", "500"],
                    TimeSpan.FromMinutes(5)).GetProperty("allreduce_us").GetDouble();
                var @case = string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos={silos}");
                context.Add(@case, "mpi_allreduce_us", mpi, "µs");
                context.Add(@case, "ratio_to_mpi_allreduce", iterations[silos].Messaging / mpi, "×");
            }
        }

        foreach (var (silos, run) in kmeansJobs.OrderBy(k => k.Key))
        {
            var @case = string.Create(CultureInfo.InvariantCulture, $"algorithm=kmeans,data={dataLabel},n={data.Count},k={Clusters},iterations={kmeans.MaxIterations},partitions={Partitions},silos={silos}");
            ClusterJobs.AddJobRows(context, @case, (run.First, run.Seconds), silos > 0 ? (kmeansJobs[0].First, kmeansJobs[0].Seconds) : null);
            if (silos > 0)
            {
                context.Add(@case, "lloyd_compute_us_per_pass", run.ComputeUs, "µs");
                context.Add(@case, "lloyd_messaging_us_per_pass", run.MessagingUs, "µs");
                context.Add(@case, "identical_to_single_node", run.Identical ? 1 : 0, "bool");
            }
        }

        foreach (var (silos, run) in indianaJobs.OrderBy(j => j.Key))
        {
            var @case = string.Create(CultureInfo.InvariantCulture, $"algorithm=annealing,data=census-indiana,n={indiana.Count},k=20,partitions={indianaPartitions},silos={silos}");
            ClusterJobs.AddJobRows(context, @case, (run.First, run.Seconds), silos > 0 ? (indianaJobs[0].First, indianaJobs[0].Seconds) : null);
            if (silos > 0)
            {
                context.Add(@case, "identical_to_single_node", run.Identical ? 1 : 0, "bool");
            }
        }

        var (recovery, faultIdentical, faultView) = await KillSiloAsync(connectionString, datasetId, job, referenceJob, cancellationToken);
        var faultCase = string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions},silos=3,fault=kill-silo");
        context.Add(faultCase, "time_to_recover_s", faultView.Passes.LongestPassMicroseconds / 1e6, "s");
        context.Add(faultCase, "client_observed_recovery_s", recovery.TotalSeconds, "s");
        context.Add(faultCase, "retries", faultView.Passes.Retries, "calls");
        context.Add(faultCase, "identical_to_single_node", faultIdentical ? 1 : 0, "bool");

        Report(context, data.Count, iterations, recovery, faultIdentical, faultView);
        ReportKMeans(context, data.Count, kmeans, kmeansJobs);
        ReportOneSilo(context, context.Quick);
        await ElasticGridRun.RunAsync(context, connectionString, datasetId, Partitions, pass, referenceSums, string.Create(CultureInfo.InvariantCulture, $"data={dataLabel},n={data.Count},k={Clusters},partitions={Partitions}"),
            string.Create(CultureInfo.InvariantCulture, $"The {(context.Quick ? "first points of the national census" : "national census")} ({data.Count:N0} points), DA E-steps at K = {Clusters},"), rounds: 1, cancellationToken);
        var growth = await GrowingAsync(context, connectionString, census, cancellationToken);
        Model(context, data.Count, iterations[0].Wall, growth);
    }

    /// <summary>
    /// The grid on P machines of 16 cores, fitted on this run: a DA E-step's compute per point and
    /// core from the pass in this process; a pass's messaging per level of the fan-in tree two ways —
    /// as the growing grid measured it (silo processes beyond two sharing two cores: an upper bound)
    /// and at a level's uncontended cost (two silo processes, a core each) — and a LAN's round trip
    /// per level this machine cannot make.
    /// </summary>
    private static void Model(ExperimentContext context, int points, double passMicroseconds, (double FirstLevel, double PerLevel, double Uncontended) growth)
    {
        const double roundTripUs = GridModel.RoundTripUs;
        var perPointCoreUs = passMicroseconds * Environment.ProcessorCount / points;
        var perLevel = Math.Max(0, growth.PerLevel);
        context.Section("Model: 8, 32 and 128 machines of 16 cores", string.Create(CultureInfo.InvariantCulture,
            $"Fitted on this run: a DA E-step at K = {Clusters} costs c = {perPointCoreUs * 1000:F1} ns per point per core (the pass in this process, {points:N0} points, {Environment.ProcessorCount} cores). " +
            $"A pass's messaging through the fan-in tree of L(P) = ⌈log₄ P⌉ levels (2 at 8 machines, 3 at 32, 4 at 128), each level adding a LAN round trip of {roundTripUs:F0} µs (an assumption: this machine's kernel has no netem to measure one), two ways: " +
            $"**as measured** — m₁ = {growth.FirstLevel:F0} µs for the first level (four silo processes) and s = {perLevel:F0} µs per further one (least squares over 4, 8 and 16 silo processes), T(P) = c·n/(16P) + m₁ + s·(L − 1) + RTT·L — " +
            $"where 8 and 16 silo processes share two cores, so s is mostly their contention for the cores, an upper bound no cluster of machines with their own cores pays; " +
            $"and **a level at its uncontended cost** — every level costing what one does with two silo processes on a core each ({growth.Uncontended:F0} µs: the call, the silo's turn and merge, the answer), T(P) = c·n/(16P) + L·(m₂ + RTT). " +
            $"Efficiency = (c·n/16) / (P·T(P)) against one machine of 16 cores without messaging. " +
            $"What it assumes: partitions spread evenly (a grid of at least 16P partitions: `Cluster:MaxPartitions` raised past 64), compute shrinking with cores as it does on this machine's two. " +
            $"What this 2-core machine cannot show: a speed-up from more machines, a level's cost on machines of their own, memory bandwidth shared by 16 cores, and a real network's round trip and bandwidth."));
        GridModel.Add(context, perPointCoreUs,
        [
            new("measured", "as measured", machines => growth.FirstLevel + (perLevel * (TreeLevels(machines) - 1)) + (roundTripUs * TreeLevels(machines))),
            new("uncontended", "uncontended levels", machines => (growth.Uncontended + roundTripUs) * TreeLevels(machines)),
        ]);
    }

    /// <summary>Partitions of the growing grid: one per silo of the largest count measured.</summary>
    private const int GrowingPartitions = 16;

    /// <summary>
    /// Messaging per pass as the grid grows, 1 to 16 silo processes on small data (so many fit this
    /// machine): the pass down the fan-in tree (at most four calls from the coordinator) and, pass for
    /// pass beside it, the star (one call per silo), against Open MPI's allreduce of the same payload
    /// among as many processes.
    /// </summary>
    private static async Task<(double FirstLevel, double PerLevel, double Uncontended)> GrowingAsync(ExperimentContext context, string connectionString, DenseVectors census, CancellationToken cancellationToken)
    {
        var data = KernelData.Prefix(census, GrowingPartitions * 1_000);
        var pass = EStep(data);
        double[] reference;
        using (var local = new LocalPartitions(data, GrowingPartitions, new ParallelismOptions()))
        {
            reference = local.Reduce(pass, cancellationToken);
        }

        var counts = context.Quick ? new[] { 1, 2, 4 } : [1, 2, 3, 4, 8, 16];
        var repeats = context.Quick ? 30 : 100;
        var datasetId = Guid.NewGuid();
        var label = string.Create(CultureInfo.InvariantCulture, $"data=census-{data.Count / 1000}k,n={data.Count},k={Clusters},partitions={GrowingPartitions}");
        var measured = new Dictionary<int, (double Tree, double Star, double Compute, int Answers, bool Identical)>();
        foreach (var silos in counts)
        {
            await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, silos, cancellationToken);
            if (silos == counts[0])
            {
                await StoreAsync(cluster.Client, datasetId, data, cancellationToken);
            }

            var grid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, GrowingPartitions, TimeSpan.FromMinutes(2), cancellationToken), cancellationToken);
            await cluster.QuietAsync(cancellationToken);
            var tree = new List<double>();
            var star = new List<double>();
            var computes = new List<double>();
            var identical = true;
            var calls = 0L;
            // Tree and star pass for pass, so both see the same moments of a noisy machine.
            for (var warm = WarmUp.ForShortPasses(context.Quick); tree.Count < repeats;)
            {
                var timed = warm.Over();
                foreach (var fanIn in new[] { 4, int.MaxValue })
                {
                    grid.FanIn = fanIn;
                    var (before, callsBefore) = (grid.Statistics, grid.SiloCalls);
                    var sums = await Task.Run(() => grid.Reduce(pass, cancellationToken), cancellationToken);
                    identical &= ClusterJobs.SameBits(reference, sums);
                    var messaging = grid.Statistics.MessagingMicroseconds - before.MessagingMicroseconds;
                    if (timed)
                    {
                        (fanIn == 4 ? tree : star).Add(messaging);
                        if (fanIn == 4)
                        {
                            computes.Add(grid.Statistics.ComputeMicroseconds - before.ComputeMicroseconds);
                            calls = grid.SiloCalls - callsBefore;
                        }
                    }
                }
            }

            identical &= grid.Silos.Length == Math.Min(silos, GrowingPartitions) && grid.Statistics.Retries == 0;
            measured[silos] = (Statistics.Median(tree), Statistics.Median(star), Statistics.Median(computes), (int)calls, identical);
            var @case = string.Create(CultureInfo.InvariantCulture, $"{label},silos={silos}");
            context.Add(@case + ",fold=tree", "messaging_us", measured[silos].Tree, "µs");
            context.Add(@case + ",fold=star", "messaging_us", measured[silos].Star, "µs");
            context.Add(@case + ",fold=tree", "compute_us", measured[silos].Compute, "µs");
            context.Add(@case + ",fold=tree", "answers_to_coordinator", calls, "calls");
            context.Add(@case, "identical_to_single_node", identical ? 1 : 0, "bool");
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  growing grid, silos={silos}: messaging {measured[silos].Tree:F0} µs down the tree ({calls} answers), {measured[silos].Star:F0} µs as a star; compute {measured[silos].Compute:F0} µs; identical {identical}"));
        }

        var mpi = new Dictionary<int, double>();
        if (Peers.BuildError is null)
        {
            foreach (var silos in counts.Where(c => c > 1))
            {
                mpi[silos] = Peers.RunJson("mpirun",
                    ["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "tcp,self", "-np", silos.ToString(CultureInfo.InvariantCulture),
                     Peers.PathOf("allreduce"), pass.Length.ToString(CultureInfo.InvariantCulture), context.Quick ? "1000" : "5000", "200"],
                    TimeSpan.FromMinutes(5)).GetProperty("allreduce_us").GetDouble();
                var @case = string.Create(CultureInfo.InvariantCulture, $"{label},silos={silos},fold=tree");
                context.Add(@case, "mpi_allreduce_us", mpi[silos], "µs");
                context.Add(@case, "ratio_to_mpi_allreduce", measured[silos].Tree / mpi[silos], "×");
            }
        }

        // The growth, fitted by least squares: the star's per added silo, the tree's per level.
        var (starBase, starSlope) = Fit([.. measured.Select(m => ((double)m.Key, m.Value.Star))]);
        // The tree's growth from its full levels (four silos or more answering at the top): below
        // that a level is narrower, not cheaper per silo. With one full level measured, each further
        // level is taken to cost what the first does.
        var full = measured.Where(m => m.Key >= 4).Select(m => ((double)TreeLevels(m.Key), m.Value.Tree)).ToArray();
        var (treeBase, treeSlope) = full.Select(f => f.Item1).Distinct().Count() > 1 ? Fit(full)
            : full.Length > 0 ? (0, full.Average(f => f.Item2)) : (0, measured.Values.Max(m => m.Tree));
        context.Add(label + ",fold=star", "messaging_us_per_added_silo", starSlope, "µs");
        context.Add(label + ",fold=tree", "messaging_us_per_tree_level", treeSlope, "µs");
        context.Add(label + ",fold=tree", "messaging_us_first_level", treeBase + treeSlope, "µs");

        context.Section("Messaging as the grid grows", string.Create(CultureInfo.InvariantCulture,
            $"{data.Count:N0} points in {GrowingPartitions} partitions, K = {Clusters} (a pass's sums: {pass.Length} doubles), on 1 to {counts[^1]} silo processes sharing this machine's {Environment.ProcessorCount} cores, " +
            $"the coordinator in the benchmark's process (a client: every silo is called). Each pass goes **down the tree** — the coordinator calls at most four silos, each calls the subtrees below it and answers for them as reduction-tree nodes — " +
            $"and, pass for pass beside it, as a **star** (one call per silo, the coordinator adding every answer). Messaging is the pass's wall time less the busiest silo's compute (medians of {repeats} passes of each after {WarmUp.ForShortPasses(context.Quick).Describe()}); " +
            $"**answers** are the calls the coordinator made and heard back per pass. MPI is Open MPI's `MPI_Allreduce` of the same {pass.Length} doubles among as many processes, over TCP on the same loopback, run after the silos. " +
            $"Every silo count oversubscribes the two cores beyond two silos: what this shows is how the messaging grows, not a speed-up."));
        context.Table(["silos", "tree levels", "answers to the coordinator", "messaging, tree, µs", "messaging, star, µs", "MPI_Allreduce, µs", "tree ÷ MPI", "compute, µs", "identical"],
            measured.OrderBy(m => m.Key).Select(m => (IReadOnlyList<string>)[
                m.Key.ToString(CultureInfo.InvariantCulture),
                TreeLevels(m.Key).ToString(CultureInfo.InvariantCulture),
                m.Value.Answers.ToString(CultureInfo.InvariantCulture),
                m.Value.Tree.ToString("F0", CultureInfo.InvariantCulture),
                m.Value.Star.ToString("F0", CultureInfo.InvariantCulture),
                mpi.TryGetValue(m.Key, out var a) ? a.ToString("F0", CultureInfo.InvariantCulture) : "–",
                mpi.TryGetValue(m.Key, out var b) ? (m.Value.Tree / b).ToString("F1", CultureInfo.InvariantCulture) : "–",
                m.Value.Compute.ToString("F0", CultureInfo.InvariantCulture),
                m.Value.Identical ? "yes" : "no"]));
        context.Paragraph(string.Create(CultureInfo.InvariantCulture,
            $"Fitted (least squares): the star's messaging grows by **{starSlope:F0} µs per added silo** (from {starBase + starSlope:F0} µs at one); the tree's by **{treeSlope:F0} µs per level** ({treeBase + treeSlope:F0} µs at one full level of four silos; levels = ⌈log₄⌉ of the silos, fitted on the counts of four silos or more{(full.Select(f => f.Item1).Distinct().Count() > 1 ? "" : ": one level measured, each further one taken to cost as much")})."));
        // Two silo processes on two cores, a rank each: a level of the tree with no core shared.
        return (treeBase + treeSlope, treeSlope, measured.TryGetValue(2, out var two) ? two.Tree : measured.Values.Min(m => m.Tree));
    }

    /// <summary>Levels of the fan-in tree (fan-in 4) over <paramref name="silos"/> silos: 1 up to 4, 2 up to 20, 3 up to 84 …</summary>
    internal static int TreeLevels(int silos)
    {
        var (levels, reach, width) = (0, 0, 1);
        while (reach < silos)
        {
            width *= 4;
            reach += width;
            levels++;
        }

        return levels;
    }

    /// <summary>Least squares y = a + b·x.</summary>
    private static (double A, double B) Fit(IReadOnlyList<(double X, double Y)> points)
    {
        var (mx, my) = (points.Average(p => p.X), points.Average(p => p.Y));
        var sxx = points.Sum(p => (p.X - mx) * (p.X - mx));
        var b = sxx == 0 ? 0 : points.Sum(p => (p.X - mx) * (p.Y - my)) / sxx;
        return (my - (b * mx), b);
    }

    /// <summary>The single silo (the embedded default's topology) against one process: every whole job this run timed on both.</summary>
    private static void ReportOneSilo(ExperimentContext context, bool quick)
    {
        context.Section("One silo against one process",
            "The embedded default runs jobs on one local silo; the goal is that this costs no more than 10 % over the same grid in one process. " +
            "Every whole job this run timed on both sides, start to result as its client sees it (the client follows the coordinator's watch stream, as a service does); **first** is a process's first job of its kind (its code compiled by the JIT), **next** the one after — " +
            "for Indiana's jobs of a fifth of a second, the median of " + JobRepeats(quick).ToString(CultureInfo.InvariantCulture) + " jobs after a warm-up of " + ShortJobs(quick).Describe().Replace("passes", "jobs", StringComparison.Ordinal) + " on each side.");
        var rows = context.Rows.Where(r => r.Case.StartsWith("algorithm=", StringComparison.Ordinal) && r.Case.EndsWith(",silos=1", StringComparison.Ordinal)).ToList();
        string Of(string @case, string metric) => rows.FirstOrDefault(r => r.Case == @case && r.Metric == metric)?.Value.ToString("F2", CultureInfo.InvariantCulture) ?? "–";
        // A job's own row, else (the national DA job) the row of the iteration on the same silo, which covers it.
        string Identical(string @case) =>
            (rows.FirstOrDefault(i => i.Case == @case && i.Metric == "identical_to_single_node")
             ?? context.Rows.FirstOrDefault(i => i.Case.StartsWith("data=", StringComparison.Ordinal) && i.Case.EndsWith(",silos=1", StringComparison.Ordinal) && i.Metric == "identical_to_single_node"))?.Value == 1 ? "yes" : "no";
        context.Table(["job", "one silo, s", "ratio to in-process", "first job: ratio", "identical"],
            rows.Where(r => r.Metric == "seconds_per_job").Select(r => (IReadOnlyList<string>)[
                r.Case[..r.Case.IndexOf(",partitions=", StringComparison.Ordinal)],
                r.Value.ToString("F2", CultureInfo.InvariantCulture),
                Of(r.Case, "ratio_to_in_process"),
                Of(r.Case, "ratio_to_in_process_first"),
                Identical(r.Case)]));
    }

    /// <summary>A whole k-means job on the cluster (k-means++ seeding through the partitions, then Lloyd passes): its time, its passes' compute and messaging, and whether its bits are the grid's.</summary>
    /// <summary>
    /// The warm-up of jobs of a fraction of a second, on every side alike: 20 s and 60 jobs (--quick:
    /// 5 s and 20). A job's start and end run code once per job (the coordinator's state, its
    /// reminder, the store), which the JIT promotes only after tens of jobs: measured on a silo after
    /// ten jobs, its compiler still took 1.5 s of CPU in 5.5 s of jobs, from the two cores they ran on.
    /// </summary>
    private static WarmUp ShortJobs(bool quick) => quick ? new(20, TimeSpan.FromSeconds(5)) : new(60, TimeSpan.FromSeconds(20));

    /// <summary>The timed jobs after the warm-up, whose median is reported.</summary>
    private static int JobRepeats(bool quick) => quick ? 5 : 15;

    private static async Task<(double Seconds, double ComputeUs, double MessagingUs, bool Identical)> KMeansJobAsync(
        IGrainFactory grains, Guid datasetId, KMeansOptions options, KMeansResult reference, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var (view, result) = await ClusterJobs.KMeansAsync(grains, datasetId, Partitions, options, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        var passes = Math.Max(1, view.Passes.Passes);
        return (seconds, view.Passes.ComputeMicroseconds / passes, view.Passes.MessagingMicroseconds / passes, ClusterJobs.SameBits(reference, result));
    }

    private static void ReportKMeans(ExperimentContext context, int points, KMeansOptions options, Dictionary<int, (double First, double Seconds, double ComputeUs, double MessagingUs, bool Identical)> jobs)
    {
        context.Section("k-means on the cluster", string.Create(CultureInfo.InvariantCulture,
            $"The same {points:N0} points and grid, K = {options.Clusters}, one k-means++ seeding and {options.MaxIterations} Lloyd iterations at most, as a whole job: the coordinator draws each of the {options.Clusters} seeds " +
            $"from the partitions' masses (its own silo's partitions computed in place, one call per other silo for the masses, a call to the partition the draw falls in), then sends every Lloyd iteration as a pass (in place, one call per other silo). " +
            $"Silos = 0 is the same grid in the benchmark's process. Each side runs the job twice: the **first** in a process compiles the k-means code (the JIT), the **next** does not. " +
            $"Compute and messaging are per Lloyd pass of the next job (the busiest silo's compute, the rest of the wait); **identical** compares centres, assignments and inertia bit for bit."));
        context.Table(["silos", "first job, s", "ratio to in-process", "next job, s", "ratio to in-process", "Lloyd pass: compute, ms", "messaging, µs", "identical"],
            jobs.OrderBy(j => j.Key).Select(j => (IReadOnlyList<string>)[
                j.Key.ToString(CultureInfo.InvariantCulture),
                j.Value.First.ToString("F2", CultureInfo.InvariantCulture),
                (j.Value.First / jobs[0].First).ToString("F2", CultureInfo.InvariantCulture),
                j.Value.Seconds.ToString("F2", CultureInfo.InvariantCulture),
                (j.Value.Seconds / jobs[0].Seconds).ToString("F2", CultureInfo.InvariantCulture),
                j.Key == 0 ? "–" : (j.Value.ComputeUs / 1000).ToString("F2", CultureInfo.InvariantCulture),
                j.Key == 0 ? "–" : j.Value.MessagingUs.ToString("F0", CultureInfo.InvariantCulture),
                j.Key == 0 ? "reference" : j.Value.Identical ? "yes" : "no"]));
    }

    /// <summary>An E-step at K = 100: centres spread over the data, a temperature where most points still share several.</summary>
    internal static PartitionPass EStep(DenseVectors data, int clusters = Clusters)
    {
        var kp = CentreSet.Pad(clusters);
        var logMass = Enumerable.Repeat(double.NegativeInfinity, kp).ToArray();
        Array.Fill(logMass, -Math.Log(clusters), 0, clusters);
        var length = new PassSums(kp, 2).EStepLength;
        return PartitionPass.Create(PassKind.EStep, length, Math.Max(kp * 4 + 4, clusters * 4 + kp + 4), null, kp, clusters, 2, SpreadCentres(data, clusters), logMass, 1.0 / 2_000, null, null, null);
    }

    /// <summary>A Lloyd pass (k-means' assign-and-sum) at <paramref name="clusters"/> centres spread over the data.</summary>
    internal static PartitionPass Lloyd(DenseVectors data, int clusters = Clusters)
    {
        var kp = CentreSet.Pad(clusters);
        return PartitionPass.Create(PassKind.Lloyd, new PassSums(kp, 2).LloydLength, (kp * 3) + 4, null, kp, clusters, 2, SpreadCentres(data, clusters), new double[kp], 0, null, null, null);
    }

    /// <summary>Every (n/k)-th point, row-major.</summary>
    private static double[] SpreadCentres(DenseVectors data, int clusters)
    {
        var centres = new double[clusters * 2];
        for (var c = 0; c < clusters; c++)
        {
            data.Point((int)((long)data.Count * c / clusters)).CopyTo(centres.AsSpan(2 * c));
        }

        return centres;
    }

    internal static async Task StoreAsync(IHost client, Guid id, DenseVectors data, CancellationToken cancellationToken) =>
        await client.Services.GetRequiredService<IDataStore>().CreateDatasetAsync(
            new DatasetInfo { Id = id, Name = "census", Kind = DatasetKind.Dense, Count = data.Count, Dimension = 2, TotalWeight = data.TotalWeight, Created = DateTimeOffset.UtcNow },
            new DatasetContent { Values = data.Values, Weights = data.Weights }, cancellationToken);

    /// <summary>Three silos, a job, a partition silo killed once the job has checkpointed: how long until passes complete again.</summary>
    private static async Task<(TimeSpan Recovery, bool Identical, GridJobView View)> KillSiloAsync(string connectionString, Guid datasetId, AnnealingOptions options, AnnealingResult reference, CancellationToken cancellationToken)
    {
        await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, 3, cancellationToken);
        Stopwatch? sinceKill = null;
        long passesAtKill = 0;
        var recovery = TimeSpan.Zero;
        var (view, result) = await ClusterJobs.AnnealAsync(cluster.Grains, datasetId, Partitions, options, cancellationToken, view =>
        {
            if (sinceKill is null && view.Checkpoints >= 1 && view.Silos.Length == 3)
            {
                cluster.Silos.First(s => !s.Is(view.Coordinator)).Kill();
                (sinceKill, passesAtKill) = (Stopwatch.StartNew(), view.Passes.Passes);
            }
            else if (sinceKill is not null && recovery == TimeSpan.Zero && view.Passes.Retries > 0 && view.Passes.Passes > passesAtKill + 1)
            {
                recovery = sinceKill.Elapsed;
            }

            return Task.CompletedTask;
        });
        if (sinceKill is null)
        {
            throw new InvalidOperationException("The job ended before a silo could be killed.");
        }

        return (recovery == TimeSpan.Zero ? sinceKill.Elapsed : recovery, ClusterJobs.SameBits(reference, result), view);
    }

    private static void Report(ExperimentContext context, int points, Dictionary<int, (double Wall, double Compute, double Messaging)> iterations, TimeSpan recovery, bool faultIdentical, GridJobView fault)
    {
        context.Section("Result", string.Create(CultureInfo.InvariantCulture,
            $"{points:N0} census block groups in a grid of {Partitions} partitions, K = {Clusters}; silos are separate processes on this {Environment.ProcessorCount}-core machine, " +
            $"sharing its cores: each silo computes on cores ÷ silos ranks, at least one (`Cluster:Ranks`; three silos on two cores share them, so that row shows contention too). " +
            $"One iteration = the E-step as a job's coordinator sends it — down the fan-in tree, which on up to four silos is one call per silo, each silo computing its partitions and answering with their sums added up as reduction-tree nodes — completed in the tree's order; " +
            $"**call per partition** is the same pass sent as one call to each partition (the design before the per-silo fold), measured beside it; **compute** is the busiest silo's computing " +
            $"(a silo runs its partitions one after another on its ranks, so it is the sum of its partitions' times), **messaging** the rest of the coordinator's wait. " +
            $"Every side runs passes for at least {WarmUp.ForShortPasses(context.Quick).Describe()} before the timed ones: a fresh silo's JIT compiles in the background for seconds, taking a core from the ranks. " +
            $"Silos = 0 is the baseline: the same grid computed in the benchmark's own process, no Orleans. " +
            $"**identical** compares the iteration's folded sums (every repeat) and a whole DA job with the same grid computed in one process, bit for bit."));
        string Metric(int silos, string metric) => silos == 0 ? "–" : context.Rows.FirstOrDefault(r => r.Case.EndsWith($",silos={silos}", StringComparison.Ordinal) && r.Metric == metric) is { } row
            ? row.Value.ToString("F0", CultureInfo.InvariantCulture) : "–";
        context.Table(["silos", "ms per iteration", "busiest silo computing, ms", "messaging, µs", "messaging, call per partition, µs", "ratio to in-process", "identical"],
            iterations.OrderBy(i => i.Key).Select(i => (IReadOnlyList<string>)[
                i.Key.ToString(CultureInfo.InvariantCulture),
                (i.Value.Wall / 1000).ToString("F2", CultureInfo.InvariantCulture),
                (i.Value.Compute / 1000).ToString("F2", CultureInfo.InvariantCulture),
                i.Value.Messaging.ToString("F0", CultureInfo.InvariantCulture),
                Metric(i.Key, "messaging_us_call_per_partition"),
                (i.Value.Wall / iterations[0].Wall).ToString("F2", CultureInfo.InvariantCulture),
                i.Key == 0 ? "reference" : context.Rows.Any(r => r.Case.EndsWith($",silos={i.Key}", StringComparison.Ordinal) && r.Metric == "identical_to_single_node" && r.Value == 1) ? "yes" : "no"]));
        string Value(int silos, string metric, string format) => context.Rows.FirstOrDefault(r => r.Case.EndsWith($",silos={silos}", StringComparison.Ordinal) && r.Metric == metric) is { } row
            ? row.Value.ToString(format, CultureInfo.InvariantCulture) : "–";
        context.Paragraph("**Where the messaging goes.** The pass's wall time less the longest silo turn (from the call's arrival at a silo to its answer) is the calls' **travel** — " +
            "serialisation, loopback, Orleans' scheduling on both ends — split by the silo's own clock (one host: one monotonic clock) into the **way in** (sent to arrival) and the **way back** (answer to receipt); " +
            "the turn less the compute is the silo's own **overhead** (its cores' gate, the hop to them and back). " +
            "Beside them, a grain call that computes nothing (a partition's info), one at a time, from the same client.");
        context.Table(["silos", "messaging, µs", "travel, µs", "way in, µs", "way back, µs", "silo overhead, µs", "empty call round trip, µs", "pass computing nothing, round trip, µs"],
            iterations.Keys.Where(k => k > 0).Order().Select(k => (IReadOnlyList<string>)[
                k.ToString(CultureInfo.InvariantCulture), Value(k, "messaging_us", "F0"), Value(k, "travel_us", "F0"), Value(k, "travel_in_us", "F0"), Value(k, "travel_back_us", "F0"), Value(k, "silo_overhead_us", "F0"), Value(k, "call_round_trip_us", "F0"), Value(k, "empty_pass_round_trip_us", "F0")]));
        if (context.Rows.Any(r => r.Metric == "mpi_allreduce_us"))
        {
            context.Paragraph("**Against MPI.** Open MPI's `MPI_Allreduce` (sum) of the same sums, K × (D + 1) doubles, among as many processes as silos, over TCP on the same loopback " +
                "(`bench/peers/allreduce.c`, `mpirun --mca btl tcp,self`), run in this benchmark after the silos:");
            context.Table(["silos", "pass messaging, µs", "MPI_Allreduce, µs", "ratio"],
                context.Rows.Where(r => r.Metric == "mpi_allreduce_us").Select(r => r.Case[(r.Case.LastIndexOf('=') + 1)..]).Select(k => (IReadOnlyList<string>)[
                    k, Value(int.Parse(k, CultureInfo.InvariantCulture), "messaging_us", "F0"), Value(int.Parse(k, CultureInfo.InvariantCulture), "mpi_allreduce_us", "F1"),
                    Value(int.Parse(k, CultureInfo.InvariantCulture), "ratio_to_mpi_allreduce", "F0") + "×"]));
        }

        context.Paragraph("**A whole DA job** on the grid (its coordinator on a silo, computing that silo's partitions in place, one call per other silo per pass), start to result as its client sees it, against the same grid in this process:");
        context.Table(["silos", "job, s", "ratio to in-process", "messaging per pass, µs", "identical"],
            iterations.Keys.Where(k => k > 0).Order().Select(k => (IReadOnlyList<string>)[
                k.ToString(CultureInfo.InvariantCulture),
                context.Rows.FirstOrDefault(r => r.Case.StartsWith("algorithm=annealing,", StringComparison.Ordinal) && r.Case.EndsWith($",silos={k}", StringComparison.Ordinal) && r.Metric == "seconds_per_job")?.Value.ToString("F2", CultureInfo.InvariantCulture) ?? "–",
                context.Rows.FirstOrDefault(r => r.Case.StartsWith("algorithm=annealing,", StringComparison.Ordinal) && r.Case.EndsWith($",silos={k}", StringComparison.Ordinal) && r.Metric == "ratio_to_in_process")?.Value.ToString("F2", CultureInfo.InvariantCulture) ?? "–",
                Value(k, "job_messaging_us_per_pass", "F0"),
                context.Rows.Any(r => r.Case.EndsWith($",silos={k}", StringComparison.Ordinal) && r.Metric == "identical_to_single_node" && r.Value == 1) ? "yes" : "no"]));
        context.Paragraph(string.Create(CultureInfo.InvariantCulture,
            $"**Fault.** Three silos, a DA job; once it had checkpointed, a silo holding partitions (not the coordinator's) was killed with SIGKILL. " +
            $"The interrupted pass completed {fault.Passes.LongestPassMicroseconds / 1e6:F1} s after it was sent (the job's own figure, `time_to_recover_s`: the cluster's failure detection — probes of 1 s, two missed, votes — the directory's safety lease of 4 s, then the partitions reactivated on the survivors reloading their rows, each its own range); " +
            $"the benchmark, a client watching the job through the silos' gateways (one of which was the killed silo), saw passes complete again {recovery.TotalSeconds:F1} s after the kill (`client_observed_recovery_s`); " +
            $"{fault.Passes.Retries} partition calls were asked again; the job's result was {(faultIdentical ? "bit-identical" : "NOT identical")} to the single-node one."));

        // A model of the machine level on P machines of 16 cores, national census: each partition's
        // compute shrinks with the cores that share it, the coordinator's messaging is measured.
        var perPointCore = iterations[1].Compute * Environment.ProcessorCount / points; // µs of one core per point for one iteration
        var messagingSlope = (iterations[3].Messaging - iterations[1].Messaging) / 2;
        const int national = 242_335;
        const int cores = 16;
        double Iteration(int machines) => perPointCore * national / (machines * cores) + iterations[1].Messaging + messagingSlope * (machines - 1);
        var t1 = perPointCore * national / cores;
        context.Section("Model: 8 and 32 machines of 16 cores", string.Create(CultureInfo.InvariantCulture,
            $"From this run: compute {perPointCore * 1000:F2} ns per point per core for one K = {Clusters} iteration, messaging {iterations[1].Messaging:F0} µs at one silo growing by " +
            $"{messagingSlope:F0} µs per added silo (measured from 1 to 3). An iteration on P machines of {cores} cores, national census ({national:N0} points), partitions spread evenly: " +
            $"T(P) = c·n/(16P) + m(P); overhead f = (P·T(P) − T(1))/T(1) where T(1) is the same machine alone without messaging. The seeds report f ≈ 0.02–0.1 for the thread level on large n; " +
            $"the model's f is the machine level's cost on top of it. It assumes partitions evenly spread (the grid has {Partitions}: at 32 machines a larger grid is needed, chosen with the data) " +
            $"and messaging growing linearly with machines, which 3 loopback silos cannot confirm: on one machine every added silo also shares its two cores, so the measured slope includes that contention and the model's f is an upper bound."));
        context.Table(["machines", "ms per iteration", "speed-up", "f", "efficiency"],
            new[] { 1, 8, 32 }.Select(p =>
            {
                var tp = Iteration(p);
                var f = (p * tp - t1) / t1;
                return (IReadOnlyList<string>)[
                    p.ToString(CultureInfo.InvariantCulture),
                    (tp / 1000).ToString("F3", CultureInfo.InvariantCulture),
                    (t1 / tp).ToString("F1", CultureInfo.InvariantCulture),
                    f.ToString("F2", CultureInfo.InvariantCulture),
                    (1 / (1 + f)).ToString("F2", CultureInfo.InvariantCulture)];
            }));
    }
}
