using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Salsa.Bench.Harness;
using Salsa.Chemistry;
using Salsa.DataFiles;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Fingerprints from SMILES: Salsa.Chemistry's two engines — RDKit's C++ (the system's librdkit,
/// through its shim) and MinimalLib 2026.09.1 as WebAssembly on V8 — against RDKit itself as users
/// run it (Debian's python3-rdkit, one process per core) in the same run, on the 40,000 shipped
/// compounds: throughput, the ratio to native RDKit, and how many fingerprints are the shipped ones
/// bit for bit; in a full run, the default engine on all 176,074.
/// </summary>
public sealed class ChemFingerprintsExperiment : IExperiment
{
    public string Name => "chem-fingerprints";

    public string Description => "ECFP4 + MACCS fingerprints from SMILES: Salsa.Chemistry (RDKit C++ via librdkit, MinimalLib on V8) vs native RDKit (python3-rdkit), compounds per second, ratio, identity with the shipped bits.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.Subset40kPath);
        if (context.Quick)
        {
            shipped = shipped.Take(4_000);
        }

        var repeats = context.Quick ? 1 : 3;
        var cores = Environment.ProcessorCount;
        var rows = new List<IReadOnlyList<string>>();
        var ratios = new List<IReadOnlyList<string>>();
        var both = Rdkit.Types.ToArray();
        var rates = new Dictionary<(bool Native, int Cores), double>();
        string? systemVersion;
        using (var probe = new Rdkit(1))
        {
            systemVersion = probe.SystemVersion;
            if (systemVersion is null)
            {
                context.Paragraph("RDKit's C++ library is not on this machine (Debian: librdkit-dev, then build again): Salsa.Chemistry's native rows are missing.");
            }
        }

        foreach (var native in new[] { true, false })
        {
            foreach (var (engines, types) in new[] { (1, both), (cores, both), (cores, [FingerprintType.Ecfp4]) }.Distinct())
            {
                if (native && systemVersion is null)
                {
                    continue;
                }

                using var rdkit = new Rdkit(engines, options: new RdkitOptions { Engine = native ? RdkitEngineChoice.System : RdkitEngineChoice.Pinned });

                var (computed, seconds, warm) = await MeasureAsync(rdkit, shipped, types, repeats, cancellationToken);
                var identical = Identical(shipped, computed, types);
                var @case = $"salsa-{(native ? "native" : "wasm")} engines={engines} types={string.Join('+', types.Select(t => t.Name))}";
                rows.Add(Report(context, @case, await LabelAsync(rdkit, cancellationToken), engines, shipped.Count, seconds, identical, computed.Errors.Count(e => e is not null)));
                context.Add(@case, "warm_up_seconds", warm, "s");
                if (types.Length == both.Length)
                {
                    rates[(native, engines)] = shipped.Count / Statistics.Median(seconds);
                }
            }
        }

        if (PeerError() is { } error)
        {
            context.Paragraph($"The native RDKit peer did not run: {error}");
        }
        else
        {
            var input = Path.Combine(Directory.CreateTempSubdirectory("salsa-bench-smiles-").FullName, "smiles.txt");
            await File.WriteAllLinesAsync(input, shipped.Smiles, cancellationToken);
            foreach (var workers in new[] { 1, cores }.Distinct())
            {
                var seconds = new List<double>();
                JsonElement answer = default;
                for (var repeat = 0; repeat < repeats; repeat++)
                {
                    answer = Peers.RunJson(Peers.DebianPython, [Path.Combine(Peers.Directory, "rdkit_fingerprints.py"), "--workers", workers.ToString(CultureInfo.InvariantCulture), "--hex", input], TimeSpan.FromMinutes(20));
                    seconds.Add(answer.GetProperty("seconds").GetDouble());
                }

                var hex = answer.GetProperty("hex").EnumerateArray().ToList();
                var identical = Rdkit.Types.Select((t, k) => (t, k)).ToDictionary(p => p.t, p => Enumerable.Range(0, shipped.Count).Count(i =>
                    hex[i].ValueKind == JsonValueKind.Array && hex[i][p.k].GetString() == CompoundSet.FormatHex(shipped.Fingerprint(p.t, i), p.t)));
                rows.Add(Report(context, $"rdkit-native workers={workers}", $"RDKit {answer.GetProperty("rdkit").GetString()} native (python3-rdkit, processes)", workers, shipped.Count, seconds, identical, answer.GetProperty("failures").GetInt32()));
                var peerRate = shipped.Count / Statistics.Median(seconds);
                foreach (var native in new[] { true, false })
                {
                    if (rates.TryGetValue((native, workers), out var rate))
                    {
                        context.Add($"salsa-{(native ? "native" : "wasm")} engines={workers} types=ecfp4+maccs", "ratio_to_native_rdkit", rate / peerRate, "x");
                        ratios.Add([native ? "RDKit C++ (librdkit)" : "MinimalLib (WebAssembly)", workers.ToString(CultureInfo.InvariantCulture), $"{rate:N0}", $"{peerRate:N0}", (rate / peerRate).ToString("F2", CultureInfo.InvariantCulture)]);
                    }
                }
            }
        }

        context.Section(
            $"{shipped.Count:N0} compounds, ECFP4 (1,024 bits) and MACCS (167 bits) each",
            "Median of the repeats; the engines' (or worker processes') start is excluded and reported apart (`warm_up_seconds`). " +
            "\"Identical\" counts fingerprints equal bit for bit to the ones shipped in `data/chem` (made with RDKit 2026.09.1). " +
            "The goal for an import is at least 1,500 compounds a second on 2 cores. " +
            "MACCS is the costly part of both RDKits (166 SMARTS matches against ECFP4's one walk of the atoms): the rows with ECFP4 alone show an import that asks only for it.");
        context.Table(["implementation", "cores", "compounds/s", "ms per compound per core", "identical ECFP4", "identical MACCS", "refused"], rows);
        if (ratios.Count > 0)
        {
            context.Section("Against native RDKit (ECFP4 + MACCS)", "`ratio_to_native_rdkit`: Salsa.Chemistry's compounds per second over python3-rdkit's on as many cores, both measured above in this run. The goal is ≥ 1 with the default engine, the pinned RDKit 2026.09.1 (MinimalLib), on any machine; the chem-upload experiment measures it beside the upload.");
            context.Table(["Salsa.Chemistry engine", "cores", "compounds/s", "python3-rdkit compounds/s", "ratio_to_native_rdkit"], ratios);
        }

        if (!context.Quick)
        {
            await AllCompoundsAsync(context, cores, cancellationToken);
        }
    }

    /// <summary>The default engine on all 176,074 shipped compounds: whether every fingerprint is the shipped one, and the rate.</summary>
    private static async Task AllCompoundsAsync(ExperimentContext context, int cores, CancellationToken cancellationToken)
    {
        var all = CompoundSet.ReadFile(CompoundSet.AllPath);
        using var rdkit = new Rdkit(cores);
        var types = Rdkit.Types.ToArray();
        var (computed, seconds, _) = await MeasureAsync(rdkit, all, types, 1, cancellationToken);
        var identical = Identical(all, computed, types);
        var row = Report(context, $"salsa-default all engines={cores}", await LabelAsync(rdkit, cancellationToken), cores, all.Count, seconds, identical, computed.Errors.Count(e => e is not null));
        context.Section($"All {all.Count:N0} shipped compounds, the default engine", "One run (no repeats): every compound's fingerprints against the shipped ones — the evidence that the engine gives RDKit 2026.09.1's bits on compounds well beyond the 40,000 above.");
        context.Table(["implementation", "cores", "compounds/s", "ms per compound per core", "identical ECFP4", "identical MACCS", "refused"], [row]);
    }

    private static async Task<(MoleculeFingerprints Computed, List<double> Seconds, double Warm)> MeasureAsync(Rdkit rdkit, CompoundSet set, FingerprintType[] types, int repeats, CancellationToken cancellationToken)
    {
        var start = Stopwatch.GetTimestamp();
        await rdkit.FingerprintsAsync([.. set.Smiles.Take(rdkit.MaxEngines * 256)], types, cancellationToken: cancellationToken);
        var warm = Stopwatch.GetElapsedTime(start).TotalSeconds;
        MoleculeFingerprints computed = null!;
        var seconds = new List<double>();
        for (var repeat = 0; repeat < repeats; repeat++)
        {
            start = Stopwatch.GetTimestamp();
            computed = await rdkit.FingerprintsAsync(set.Smiles, types, cancellationToken: cancellationToken);
            seconds.Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
        }

        return (computed, seconds, warm);
    }

    private static Dictionary<FingerprintType, int> Identical(CompoundSet shipped, MoleculeFingerprints computed, FingerprintType[] types) =>
        types.ToDictionary(t => t, t => Enumerable.Range(0, shipped.Count).Count(i => shipped.Fingerprint(t, i).SequenceEqual(computed.Fingerprint(t, i))));

    private static async Task<string> LabelAsync(Rdkit rdkit, CancellationToken cancellationToken) =>
        await rdkit.UsesSystemAsync(cancellationToken)
            ? $"Salsa.Chemistry (RDKit {rdkit.SystemVersion} C++, the system's librdkit)"
            : $"Salsa.Chemistry (RDKit {await rdkit.VersionAsync(cancellationToken)} MinimalLib, WebAssembly on V8)";

    private static List<string> Report(ExperimentContext context, string @case, string label, int cores, int compounds, List<double> seconds, Dictionary<FingerprintType, int> identical, int refused)
    {
        var median = Statistics.Median(seconds);
        context.Add(@case, "seconds", median, "s");
        context.Add(@case, "rate", compounds / median, "compounds/s");
        foreach (var (type, count) in identical)
        {
            context.Add(@case, $"identical_{type.Name}", count, "compounds");
        }

        context.Console.WriteLine($"   {@case}: {compounds / median:F0} compounds/s");
        return
        [
            label,
            cores.ToString(CultureInfo.InvariantCulture),
            (compounds / median).ToString("N0", CultureInfo.InvariantCulture),
            ExperimentContext.Format(median * 1000 * cores / compounds),
            identical.TryGetValue(FingerprintType.Ecfp4, out var ecfp) ? $"{ecfp:N0}" : "not asked",
            identical.TryGetValue(FingerprintType.Maccs, out var maccs) ? $"{maccs:N0}" : "not asked",
            refused.ToString(CultureInfo.InvariantCulture),
        ];
    }

    private static string? PeerError() => Peers.MissingPython("python3-rdkit", "rdkit");
}
