using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using Salsa.Bench.Experiments.Services;
using Salsa.Bench.Harness;
using Salsa.Chemistry;
using Salsa.DataFiles;
using Salsa.Testing;

namespace Salsa.Bench.Experiments;

/// <summary>
/// The user's path for compounds: an <c>id,smiles</c> CSV uploaded through the chem service's REST
/// (<c>POST /api/chem/uploads</c>, the service in its own process over SQLite) until its compounds
/// and both fingerprint datasets are stored — beside, in the same run on the same SMILES, the pinned
/// RDKit's fingerprinting alone (Salsa.Chemistry, one engine per core) and native RDKit
/// (python3-rdkit, one process per core). 40,000 compounds (repeated) and all 176,074.
/// </summary>
public sealed class ChemUploadExperiment : IExperiment
{
    /// <summary>A first upload, excluded from the timing: the service's engines started, its JIT warm.</summary>
    private const int WarmUpCompounds = 500;

    public string Name => "chem-upload";

    public string Description => "id,smiles uploaded through the chem service's REST until its fingerprint datasets are stored, against the pinned RDKit's fingerprinting alone and native RDKit (python3-rdkit) in the same run: compounds per second and ratios.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var cores = Environment.ProcessorCount;
        var sets = new List<(string Name, CompoundSet Set, int Repeats)>();
        var subset = CompoundSet.ReadFile(CompoundSet.Subset40kPath);
        sets.Add(context.Quick ? ("4k", subset.Take(4_000), 1) : ("40k", subset, 3));
        if (!context.Quick)
        {
            sets.Add(("176k", CompoundSet.ReadFile(CompoundSet.AllPath), 1));
        }

        if (Peers.MissingPython("python3-rdkit", "rdkit") is { } missing)
        {
            context.Paragraph($"The native RDKit peer did not run: {missing}");
        }

        var rows = new List<IReadOnlyList<string>>();
        using var directory = new TemporaryDirectory("salsa-bench-upload-");
        foreach (var (name, set, repeats) in sets)
        {
            var csv = directory.Combine($"{name}.csv");
            await File.WriteAllLinesAsync(csv, set.Ids.Select((id, i) => $"{id},{set.Smiles[i]}").Prepend("id,smiles"), cancellationToken);
            var smiles = directory.Combine($"{name}.smi");
            await File.WriteAllLinesAsync(smiles, set.Smiles, cancellationToken);

            var native = Peers.MissingPython("python3-rdkit", "rdkit") is null ? NativeRate(set.Count, smiles, cores, repeats) : (double?)null;
            var kernel = await KernelRateAsync(set, cores, repeats, cancellationToken);
            var upload = new List<double>();
            for (var repeat = 0; repeat < repeats; repeat++)
            {
                upload.Add(await UploadSecondsAsync(directory, csv, set.Count, cancellationToken));
            }

            var uploadRate = set.Count / Statistics.Median(upload);
            var @case = $"compounds={name}";
            context.Add(@case, "upload_compounds_per_second", uploadRate, "compounds/s");
            context.Add(@case, "upload_seconds", Statistics.Median(upload), "s");
            context.Add(@case, "kernel_compounds_per_second", kernel, "compounds/s");
            context.Add(@case, "upload_to_kernel", uploadRate / kernel, "x");
            if (native is { } peer)
            {
                context.Add(@case, "native_rdkit_compounds_per_second", peer, "compounds/s");
                context.Add(@case, "ratio_to_native_rdkit", kernel / peer, "x");
                context.Add(@case, "upload_ratio_to_native_rdkit", uploadRate / peer, "x");
            }

            context.Console.WriteLine($"   {name}: upload {uploadRate:F0}/s, kernel {kernel:F0}/s, native {native:F0}/s");
            rows.Add([
                set.Count.ToString("N0", CultureInfo.InvariantCulture),
                repeats.ToString(CultureInfo.InvariantCulture),
                uploadRate.ToString("N0", CultureInfo.InvariantCulture),
                kernel.ToString("N0", CultureInfo.InvariantCulture),
                native?.ToString("N0", CultureInfo.InvariantCulture) ?? "–",
                Ratio(uploadRate / kernel),
                native is { } n ? Ratio(kernel / n) : "–",
                native is { } m ? Ratio(uploadRate / m) : "–",
            ]);
        }

        context.Section($"Compounds uploaded, fingerprinted (ECFP4 + MACCS) and stored, on {cores} cores",
            "*upload*: `POST /api/chem/uploads?name=…` with the CSV (`id,smiles`) as the body, timed from the request's first byte to the 201 that says the compounds dataset and both fingerprint datasets are stored — the chem service in its own process over a fresh SQLite store each time, warmed by a first upload of " +
            $"{WarmUpCompounds:N0} compounds. *kernel*: the same SMILES fingerprinted by Salsa.Chemistry's default engine (the pinned RDKit 2026.09.1, MinimalLib), one engine per core, in this process. " +
            "*native*: python3-rdkit fingerprinting the same SMILES, one process per core (their start excluded). Medians of the repeats; all measured in this run. " +
            "Goals (issue 56): kernel ≥ 1× native (`ratio_to_native_rdkit`), upload ≥ 0.8× that rate.");
        context.Table(["compounds", "repeats", "upload, compounds/s", "kernel, compounds/s", "native RDKit, compounds/s", "upload / kernel", "ratio_to_native_rdkit (kernel)", "upload / native"], rows);
    }

    private static string Ratio(double value) => value.ToString("F2", CultureInfo.InvariantCulture);

    private static double NativeRate(int count, string smiles, int workers, int repeats)
    {
        var seconds = new List<double>();
        for (var repeat = 0; repeat < repeats; repeat++)
        {
            var answer = Peers.RunJson(Peers.DebianPython, [Path.Combine(Peers.Directory, "rdkit_fingerprints.py"), "--workers", workers.ToString(CultureInfo.InvariantCulture), smiles], TimeSpan.FromMinutes(20));
            seconds.Add(answer.GetProperty("seconds").GetDouble());
        }

        return count / Statistics.Median(seconds);
    }

    private static async Task<double> KernelRateAsync(CompoundSet set, int cores, int repeats, CancellationToken cancellationToken)
    {
        using var rdkit = new Rdkit(cores);
        var types = Rdkit.Types.ToArray();
        await rdkit.FingerprintsAsync([.. set.Smiles.Take(cores * 256)], types, cancellationToken: cancellationToken);
        var seconds = new List<double>();
        for (var repeat = 0; repeat < repeats; repeat++)
        {
            var start = Stopwatch.GetTimestamp();
            await rdkit.FingerprintsAsync(set.Smiles, types, cancellationToken: cancellationToken);
            seconds.Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
        }

        return set.Count / Statistics.Median(seconds);
    }

    /// <summary>One upload of <paramref name="csv"/> to a chem service of its own; seconds to its 201.</summary>
    private static async Task<double> UploadSecondsAsync(TemporaryDirectory directory, string csv, int compounds, CancellationToken cancellationToken)
    {
        var store = directory.Combine($"chem-{Guid.NewGuid():N}.db");
        await using var service = await ServiceProcess.StartAsync("chem", $"Store:SqlitePath={store}", cancellationToken);
        using var http = new HttpClient { BaseAddress = service.Ports.RestAddress, Timeout = TimeSpan.FromMinutes(30) };
        var warm = string.Join('\n', File.ReadLines(csv).Take(WarmUpCompounds + 1));
        using (var response = await http.PostAsync("/api/chem/uploads?name=warm-up", new StringContent(warm), cancellationToken))
        {
            await Created(response, WarmUpCompounds, cancellationToken);
        }

        var start = Stopwatch.GetTimestamp();
        await using var body = File.OpenRead(csv);
        using (var response = await http.PostAsync("/api/chem/uploads?name=bench", new StreamContent(body), cancellationToken))
        {
            var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            await Created(response, compounds, cancellationToken);
            return seconds;
        }
    }

    private static async Task Created(HttpResponseMessage response, int compounds, CancellationToken cancellationToken)
    {
        var text = await response.Content.ReadAsStringAsync(cancellationToken);
        if (response.StatusCode != HttpStatusCode.Created)
        {
            throw new InvalidOperationException($"The upload answered {(int)response.StatusCode}: {text[..Math.Min(text.Length, 500)]}");
        }

        using var answer = JsonDocument.Parse(text);
        var count = answer.RootElement.GetProperty("imported").GetInt32();
        if (count != compounds)
        {
            throw new InvalidOperationException($"The upload stored {count:N0} compounds of {compounds:N0}: {text[..Math.Min(text.Length, 500)]}");
        }
    }
}
