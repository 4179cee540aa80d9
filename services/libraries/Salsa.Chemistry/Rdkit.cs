using System.Collections.Concurrent;
using System.Text;
using System.Text.Json;
using Salsa.Ccr;
using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>
/// RDKit, the reference library of cheminformatics, in this process: its MinimalLib build
/// (WebAssembly, npm <c>@rdkit/rdkit</c> 2026.9.1 — the release that made the shipped data's
/// fingerprints) on V8 isolates, one per core, made on first use and kept. Fingerprints are RDKit's
/// own bits: ECFP4 is <c>get_morgan_fp</c> radius 2 folded to 1,024 bits, MACCS <c>get_maccs_fp</c>
/// (167 bits) — bit for bit the ones shipped in <c>data/chem</c>. Where the system has RDKit's C++
/// library (<see cref="NativeVersion"/>), fingerprints of SMILES come from it, 1.7–2× MinimalLib's
/// rate and the same bits (all 176,074 shipped compounds); a molecule it cannot read goes to
/// MinimalLib, which gives RDKit's reason. Thread-safe.
/// </summary>
public sealed class Rdkit : IDisposable
{
    /// <summary>The fingerprint types RDKit computes here.</summary>
    public static IReadOnlyList<FingerprintType> Types { get; } = [FingerprintType.Ecfp4, FingerprintType.Maccs];

    private const int BatchSize = 128;
    private static readonly string MorganJson = JsonSerializer.Serialize(new { radius = 2, nBits = FingerprintType.Ecfp4.Bits });
    private readonly Lazy<RdkitFiles> _files;
    // Engines are shared by every instance in the process that loads the same files, and never
    // disposed: an isolate holds nothing between calls, making one compiles the WebAssembly again
    // (a second), and disposing V8 while its background work still calls back into .NET ended the
    // process (ClearScript: "Handle is not initialized") when hosted services stopped and started.
    // Each instance bounds how many it uses at once; the process keeps at most the busiest moment's.
    private static readonly ConcurrentDictionary<string, ConcurrentBag<RdkitEngine>> s_idle = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<string, RdkitNative?> s_native = new(StringComparer.Ordinal);
    private readonly ConcurrentBag<RdkitEngine> _idle;
    private readonly SemaphoreSlim _engines;
    private readonly Lazy<Dispatcher> _dispatcher;
    private readonly Lazy<RdkitNative?> _native;
    private bool _disposed;

    /// <param name="engines">At most this many isolates (calls at once); default: the cores.</param>
    /// <param name="directory">Where RDKit MinimalLib's files (and the native shim) are; default: <c>rdkit/</c> beside the assembly.</param>
    /// <param name="native">Fingerprints from RDKit's C++ library where the system has it (the default); false: MinimalLib only.</param>
    public Rdkit(int engines = 0, string? directory = null, bool native = true)
    {
        MaxEngines = engines > 0 ? engines : Environment.ProcessorCount;
        _engines = new SemaphoreSlim(MaxEngines, MaxEngines);
        _files = new Lazy<RdkitFiles>(() => RdkitFiles.Load(directory));
        _native = new Lazy<RdkitNative?>(() => native ? s_native.GetOrAdd(RdkitFiles.DirectoryOf(directory), RdkitNative.Load) : null);
        _idle = s_idle.GetOrAdd(directory is null ? string.Empty : Path.GetFullPath(directory), _ => []);
        _dispatcher = new Lazy<Dispatcher>(() => new Dispatcher(new DispatcherOptions { ThreadCount = MaxEngines, Name = "Salsa RDKit" }));
    }

    /// <summary>The longest SMILES RDKit is asked about (characters); a longer one is refused with the reason.</summary>
    public const int MaxSmilesLength = 500;

    /// <summary>The longest molblock RDKit is asked about (characters, about 500 atoms).</summary>
    public const int MaxMolBlockLength = 40_000;

    public int MaxEngines { get; }

    /// <summary>The release of the system's RDKit that fingerprints SMILES here (<c>2022.09.3</c>), or null: MinimalLib does.</summary>
    public string? NativeVersion => _native.Value?.Version;

    /// <summary>RDKit's version (<c>2026.09.1</c>), from an engine.</summary>
    public async Task<string> VersionAsync(CancellationToken cancellationToken = default) =>
        await UseAsync(engine => engine.Version, cancellationToken).ConfigureAwait(false);

    /// <summary>
    /// The <paramref name="types"/> fingerprints of every molecule (a SMILES or a molblock), on every engine at once (Salsa.Ccr
    /// ranks on <paramref name="dispatcher"/>, or on this instance's own dispatcher, a thread per engine). A molecule RDKit cannot
    /// read gets its reason in <see cref="MoleculeFingerprints.Errors"/>; the others are unaffected.
    /// </summary>
    public async Task<MoleculeFingerprints> FingerprintsAsync(IReadOnlyList<string> smiles, IReadOnlyCollection<FingerprintType> types, Dispatcher? dispatcher = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(smiles);
        ArgumentNullException.ThrowIfNull(types);
        if (types.Count == 0 || types.Any(t => !Types.Contains(t)))
        {
            throw new MoleculeException($"Fingerprint types must be among {string.Join(", ", Types.Select(t => t.Name))}.");
        }

        var morgan = types.Contains(FingerprintType.Ecfp4);
        var maccs = types.Contains(FingerprintType.Maccs);
        var words = types.ToDictionary(t => t, t => new ulong[smiles.Count * t.Words]);
        var errors = new string?[smiles.Count];
        var rest = _native.Value is { } native
            ? await NativeFingerprintsAsync(native, smiles, morgan ? words[FingerprintType.Ecfp4] : null, maccs ? words[FingerprintType.Maccs] : null, dispatcher, cancellationToken).ConfigureAwait(false)
            : Enumerable.Range(0, smiles.Count);
        var pending = Readable(smiles, rest, errors);
        if (pending.Length == 0)
        {
            return new MoleculeFingerprints(words, errors);
        }

        var molecules = pending.Length == smiles.Count ? smiles : pending.Select(i => smiles[i]).ToArray();
        await ForBatchesAsync(molecules, (engine, text, first, count) =>
        {
            var lines = engine.Fingerprints(text, morgan ? MorganJson : null, maccs).Split('\n');
            for (var i = 0; i < count; i++)
            {
                Store(lines[i], pending[first + i], morgan, maccs, words, errors);
            }
        }, dispatcher, cancellationToken).ConfigureAwait(false);
        return new MoleculeFingerprints(words, errors);
    }

    /// <summary>
    /// RDKit's C++ library on every rank (batches taken in turn, each writing its own molecules'
    /// words); the molecules it did not make fingerprints of, in order, for MinimalLib.
    /// </summary>
    private async Task<int[]> NativeFingerprintsAsync(RdkitNative native, IReadOnlyList<string> smiles, ulong[]? morgan, ulong[]? maccs, Dispatcher? dispatcher, CancellationToken cancellationToken)
    {
        var batches = (smiles.Count + BatchSize - 1) / BatchSize;
        var next = -1;
        var refused = new ConcurrentBag<int>();
        ObjectDisposedException.ThrowIf(_disposed, this);
        await Spmd.RunAsync(Math.Clamp(batches, 1, MaxEngines), _ =>
        {
            for (var batch = Interlocked.Increment(ref next); batch < batches; batch = Interlocked.Increment(ref next))
            {
                cancellationToken.ThrowIfCancellationRequested();
                var end = Math.Min(smiles.Count, (batch + 1) * BatchSize);
                for (var i = batch * BatchSize; i < end; i++)
                {
                    var ecfp = morgan is null ? default : morgan.AsSpan(i * FingerprintType.Ecfp4.Words, FingerprintType.Ecfp4.Words);
                    var keys = maccs is null ? default : maccs.AsSpan(i * FingerprintType.Maccs.Words, FingerprintType.Maccs.Words);
                    if (TooLong(smiles[i]) is not null || !native.TryFingerprints(smiles[i], ecfp, keys))
                    {
                        ecfp.Clear();
                        keys.Clear();
                        refused.Add(i);
                    }
                }
            }

            return ValueTask.CompletedTask;
        }, new SpmdOptions { Dispatcher = dispatcher ?? _dispatcher.Value, CancellationToken = cancellationToken }).ConfigureAwait(false);
        var rest = refused.ToArray();
        Array.Sort(rest);
        return rest;
    }

    /// <summary>
    /// RDKit's canonical SMILES of each molecule (a SMILES or a molblock), on every engine at once;
    /// a molecule RDKit cannot read gets null and its reason.
    /// </summary>
    public async Task<(string?[] Smiles, string?[] Errors)> SmilesAsync(IReadOnlyList<string> molecules, Dispatcher? dispatcher = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(molecules);
        var smiles = new string?[molecules.Count];
        var errors = new string?[molecules.Count];
        var pending = Readable(molecules, Enumerable.Range(0, molecules.Count), errors);
        await ForBatchesAsync(pending.Length == molecules.Count ? molecules : pending.Select(i => molecules[i]).ToArray(), (engine, text, first, count) =>
        {
            var lines = engine.SmilesOf(text).Split('\n');
            for (var i = 0; i < count; i++)
            {
                if (lines[i].StartsWith('!'))
                {
                    errors[pending[first + i]] = lines[i][1..];
                }
                else
                {
                    smiles[pending[first + i]] = lines[i];
                }
            }
        }, dispatcher, cancellationToken).ConfigureAwait(false);
        return (smiles, errors);
    }

    /// <summary>RDKit's 2D depiction of a molecule as an SVG document.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>.</exception>
    public Task<string> SvgAsync(string smiles, int width = 250, int height = 200, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(width, 16);
        ArgumentOutOfRangeException.ThrowIfLessThan(height, 16);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(width, 4096);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(height, 4096);
        Refuse(smiles);
        return UseAsync(engine => Answer(engine.Svg(Line(smiles), width, height), smiles), cancellationToken);
    }

    /// <summary>RDKit's molblock of a molecule (V2000, with 2D coordinates): what an SD file holds.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>.</exception>
    public Task<string> MolBlockAsync(string smiles, CancellationToken cancellationToken = default)
    {
        Refuse(smiles);
        return UseAsync(engine => Answer(engine.MolBlock(Line(smiles)), smiles), cancellationToken);
    }

    /// <summary>RDKit's canonical SMILES of a molecule.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>.</exception>
    public Task<string> CanonicalAsync(string smiles, CancellationToken cancellationToken = default)
    {
        Refuse(smiles);
        return UseAsync(engine => Answer(engine.Canonical(Line(smiles)), smiles), cancellationToken);
    }

    /// <summary>Stops this instance (its dispatcher); the engines stay with the process for the next instance.</summary>
    public void Dispose()
    {
        _disposed = true;
        if (_dispatcher.IsValueCreated)
        {
            _dispatcher.Value.Dispose();
        }
    }

    /// <summary>
    /// Runs <paramref name="work"/> over batches of the molecules (one line each) on every engine at
    /// once: Salsa.Ccr ranks on <paramref name="dispatcher"/> or this instance's own, taking batches in
    /// turn (a molecule's cost varies a hundredfold); each batch writes its own slots.
    /// </summary>
    private async Task ForBatchesAsync(IReadOnlyList<string> molecules, Action<RdkitEngine, string, int, int> work, Dispatcher? dispatcher, CancellationToken cancellationToken)
    {
        var batches = (molecules.Count + BatchSize - 1) / BatchSize;
        var next = -1;
        var ranks = Math.Clamp(batches, 1, MaxEngines);
        await Spmd.RunAsync(ranks, async _ =>
        {
            await UseAsync(engine =>
            {
                for (var batch = Interlocked.Increment(ref next); batch < batches; batch = Interlocked.Increment(ref next))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    var first = batch * BatchSize;
                    var count = Math.Min(BatchSize, molecules.Count - first);
                    work(engine, JoinLines(molecules, first, count), first, count);
                }

                return true;
            }, cancellationToken).ConfigureAwait(true);
        }, new SpmdOptions { Dispatcher = dispatcher ?? _dispatcher.Value, CancellationToken = cancellationToken }).ConfigureAwait(false);
    }

    private async Task<T> UseAsync<T>(Func<RdkitEngine, T> work, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        await _engines.WaitAsync(cancellationToken).ConfigureAwait(false);
        RdkitEngine? engine = null;
        try
        {
            if (!_idle.TryTake(out engine))
            {
                engine = await RdkitEngine.CreateAsync(_files.Value).ConfigureAwait(false);
            }

            return work(engine);
        }
        finally
        {
            if (engine is not null)
            {
                _idle.Add(engine);
            }

            _engines.Release();
        }
    }

    /// <summary>
    /// Of <paramref name="indices"/>, the molecules RDKit is asked about; the others get why not in
    /// <paramref name="errors"/> (<see cref="TooLong"/>).
    /// </summary>
    private static int[] Readable(IReadOnlyList<string> molecules, IEnumerable<int> indices, string?[] errors)
    {
        var readable = new List<int>();
        foreach (var i in indices)
        {
            if (TooLong(molecules[i]) is { } reason)
            {
                errors[i] = reason;
            }
            else
            {
                readable.Add(i);
            }
        }

        return [.. readable];
    }

    /// <summary>
    /// Why RDKit is not asked about a molecule: its text is past <see cref="MaxSmilesLength"/> (a SMILES)
    /// or <see cref="MaxMolBlockLength"/> (a molblock). RDKit's cost grows with the cube of a chain's
    /// length (a 1,000-atom chain: 1.2 s; 3,000: 30 s) and MinimalLib's stack ends before that.
    /// </summary>
    private static string? TooLong(string molecule)
    {
        var block = molecule.AsSpan().IndexOfAny('\n', '\r') >= 0;
        var limit = block ? MaxMolBlockLength : MaxSmilesLength;
        return molecule.Length <= limit ? null
            : $"{(block ? "the molblock" : "the SMILES")} has {molecule.Length:N0} characters; at most {limit:N0} are read (the longest of the shipped 176,074 compounds' SMILES has 55)";
    }

    private static void Refuse(string molecule)
    {
        if (TooLong(molecule) is { } reason)
        {
            throw new MoleculeException($"RDKit is not asked about '{Shorten(molecule)}': {reason}.");
        }
    }

    private static void Store(string line, int molecule, bool morgan, bool maccs, Dictionary<FingerprintType, ulong[]> words, string?[] errors)
    {
        if (line.StartsWith('!'))
        {
            errors[molecule] = line[1..];
            return;
        }

        var parts = line.Split(' ');
        var part = 0;
        if (morgan)
        {
            Parse(parts[part++], FingerprintType.Ecfp4, molecule, words);
        }

        if (maccs)
        {
            Parse(parts[part], FingerprintType.Maccs, molecule, words);
        }
    }

    private static void Parse(string hex, FingerprintType type, int molecule, Dictionary<FingerprintType, ulong[]> words) =>
        CompoundSet.ParseHex(hex, type, words[type].AsSpan(molecule * type.Words, type.Words), molecule + 1, "RDKit");

    private static string JoinLines(IReadOnlyList<string> smiles, int first, int count)
    {
        var text = new StringBuilder();
        for (var i = first; i < first + count; i++)
        {
            if (i > first)
            {
                text.Append('\n');
            }

            text.Append(Line(smiles[i]));
        }

        return text.ToString();
    }

    /// <summary>A molecule as one line: a molblock's line breaks travel as U+001E (the script restores them); a SMILES has none.</summary>
    private static string Line(string smiles) => smiles.Contains('\n') || smiles.Contains('\r') ? smiles.ReplaceLineEndings("\u001e") : smiles;

    private static string Answer(string answer, string smiles) =>
        answer.StartsWith('!') ? throw new MoleculeException($"RDKit cannot read the SMILES '{Shorten(smiles)}': {answer[1..]}") : answer;

    private static string Shorten(string text) => text.Length <= 80 ? text : string.Concat(text.AsSpan(0, 77), "...");
}
