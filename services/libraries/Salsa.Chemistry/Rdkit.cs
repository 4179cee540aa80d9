using System.Collections.Concurrent;
using System.Globalization;
using System.Text.Json;
using Salsa.Ccr;
using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>
/// RDKit, the reference library of cheminformatics, in this process: its MinimalLib build
/// (WebAssembly, npm <c>@rdkit/rdkit</c> 2026.9.1 — the release that made the shipped data's
/// fingerprints) on V8 isolates, one per core, made on first use and kept. Fingerprints are RDKit's
/// own bits: ECFP4 is <c>get_morgan_fp</c> radius 2 folded to 1,024 bits, MACCS <c>get_maccs_fp</c>
/// (167 bits) — bit for bit the ones shipped in <c>data/chem</c>. One release makes a deployment's
/// fingerprints (<see cref="RdkitEngineChoice"/>): by default the pinned one, so the same input gives
/// the same bits on every machine; the system's RDKit C++ library (<see cref="SystemVersion"/>) serves
/// when it is that release, or when an operator chooses it — and then it alone makes fingerprints, a
/// molecule it cannot read being refused, never filled in by another release. Every result says
/// which release made it (<see cref="MoleculeFingerprints.RdkitVersion"/>).
/// </summary>
/// <remarks>
/// What a molecule may cost is bounded by what it costs, not by a length tuned to some data: each
/// molecule has <see cref="RdkitOptions.MoleculeBudget"/> of RDKit's time (a longer one is stopped and
/// refused with that reason, its engine replaced), a call has <see cref="RdkitOptions.CallBudget"/> in
/// all, and RDKit's stack is deep enough for 10,000-atom chains (<see cref="RdkitEngine"/>); a molecule
/// deeper than that, or one that makes RDKit fail, is refused with its reason and leaves the others
/// alone. Only text no molecule needs is refused unread: a SMILES over <see cref="MaxSmilesLength"/>
/// characters, a molblock over <see cref="MaxMolBlockLength"/>, a NUL. Thread-safe.
/// </remarks>
public sealed partial class Rdkit : IDisposable
{
    /// <summary>The fingerprint types RDKit computes here.</summary>
    public static IReadOnlyList<FingerprintType> Types { get; } = [FingerprintType.Ecfp4, FingerprintType.Maccs];

    /// <summary>The longest SMILES RDKit is asked about (characters): twice the longest the platform promises to read.</summary>
    public const int MaxSmilesLength = 200_000;

    /// <summary>The longest molblock RDKit is asked about (characters): an SD record of 16 MiB.</summary>
    public const int MaxMolBlockLength = 16 << 20;

    /// <summary>
    /// The longest SMILES (characters) the system's RDKit library is given — a molblock of up to 100
    /// times that: its C++ cannot be stopped mid-molecule (a 3,000-atom chain takes it 30 s), so larger
    /// ones go to MinimalLib, which can — where it is the same release — or, where the system's RDKit
    /// is chosen, are refused.
    /// </summary>
    public const int MaxSystemLength = 2_000;

    /// <summary>Whether a molecule is small enough for the system's RDKit library (<see cref="MaxSystemLength"/>).</summary>
    public static bool ForSystem(string molecule)
    {
        ArgumentNullException.ThrowIfNull(molecule);
        return molecule.Length <= (molecule.AsSpan().IndexOfAny('\n', '\r') >= 0 ? 100 * MaxSystemLength : MaxSystemLength);
    }

    /// <summary>
    /// How RDKit makes a fingerprint type, as a dataset of them records it beside the release:
    /// MinimalLib's call and its options (the system's library is called with the same).
    /// </summary>
    public static string OptionsOf(FingerprintType type)
    {
        ArgumentNullException.ThrowIfNull(type);
        return type == FingerprintType.Ecfp4 ? $"get_morgan_fp {MorganJson}"
            : type == FingerprintType.Maccs ? "get_maccs_fp"
            : throw new ArgumentException($"RDKit makes no {type.Name} fingerprints here.", nameof(type));
    }

    private const int BatchSize = 128;
    private static readonly string MorganJson = JsonSerializer.Serialize(new { radius = 2, nBits = FingerprintType.Ecfp4.Bits });

    // Engines are shared by every instance in the process that loads the same files: an isolate
    // holds nothing between calls, and making one compiles the WebAssembly again (a second). Each
    // instance bounds how many it uses at once; the process keeps at most the busiest moment's. An
    // engine that failed or was stopped is disposed on its own thread once its call is done, and
    // never goes back.
    private static readonly ConcurrentDictionary<string, ConcurrentBag<RdkitEngine>> s_idle = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<string, RdkitNative?> s_native = new(StringComparer.Ordinal);
    private readonly Lazy<RdkitFiles> _files;
    private readonly ConcurrentBag<RdkitEngine> _idle;
    private readonly SemaphoreSlim _engines;
    private readonly Lazy<Dispatcher> _dispatcher;
    private readonly Lazy<RdkitNative?> _native;
    private readonly Lazy<Task<Fingerprinter>> _fingerprinter;
    private readonly RdkitOptions _options;
    private bool _disposed;

    /// <param name="engines">At most this many isolates (calls at once); default: the cores.</param>
    /// <param name="directory">Where RDKit MinimalLib's files (and the native shim) are; default: <c>rdkit/</c> beside the assembly.</param>
    /// <param name="options">Which RDKit makes fingerprints (default: the pinned release) and what a molecule and a call may take.</param>
    /// <exception cref="InvalidOperationException"><see cref="RdkitEngineChoice.System"/> is asked and the system's RDKit is not here.</exception>
    public Rdkit(int engines = 0, string? directory = null, RdkitOptions? options = null)
    {
        _options = options ?? new RdkitOptions();
        MaxEngines = engines > 0 ? engines : Environment.ProcessorCount;
        _engines = new SemaphoreSlim(MaxEngines, MaxEngines);
        _files = new Lazy<RdkitFiles>(() => RdkitFiles.Load(directory));
        _native = new Lazy<RdkitNative?>(() => s_native.GetOrAdd(RdkitFiles.DirectoryOf(directory), RdkitNative.Load));
        _idle = s_idle.GetOrAdd(directory is null ? string.Empty : Path.GetFullPath(directory), _ => []);
        _dispatcher = new Lazy<Dispatcher>(() => new Dispatcher(new DispatcherOptions { ThreadCount = MaxEngines, Name = "Salsa RDKit" }));
        _fingerprinter = new Lazy<Task<Fingerprinter>>(ChooseAsync);
        if (Choice == RdkitEngineChoice.System && _native.Value is null)
        {
            throw new InvalidOperationException(
                $"{RdkitOptions.Section}:Engine is System, but the system's RDKit is not here: the build compiles Salsa.Chemistry's shim where librdkit-dev and a C++ compiler are installed. Install them and build again, or leave the engine at Pinned.");
        }
    }

    /// <summary>Which RDKit this instance was asked to make fingerprints with.</summary>
    public RdkitEngineChoice Choice => _options.Engine;

    /// <summary>The longest one molecule may take (<see cref="RdkitOptions.MoleculeBudget"/>).</summary>
    public TimeSpan MoleculeBudget => _options.MoleculeBudget;

    public int MaxEngines { get; }

    /// <summary>The release of the system's RDKit C++ library where it is here (<c>2022.09.3</c>), used or not; null where it is not.</summary>
    public string? SystemVersion => _native.Value?.Version;

    /// <summary>The pinned RDKit's version (<c>2026.09.1</c>: MinimalLib's), from an engine.</summary>
    public Task<string> VersionAsync(CancellationToken cancellationToken = default) =>
        UseAsync(async slot => (await slot.EngineAsync().ConfigureAwait(false)).Version, cancellationToken);

    /// <summary>The RDKit release that makes fingerprints here: the pinned one, or the system's where it is chosen.</summary>
    public async Task<string> FingerprintsVersionAsync(CancellationToken cancellationToken = default) =>
        (await _fingerprinter.Value.WaitAsync(cancellationToken).ConfigureAwait(false)).Version;

    /// <summary>Whether the system's RDKit makes fingerprints here (it is chosen, or it is the pinned release).</summary>
    public async Task<bool> UsesSystemAsync(CancellationToken cancellationToken = default) =>
        (await _fingerprinter.Value.WaitAsync(cancellationToken).ConfigureAwait(false)).Native is not null;

    /// <summary>The RDKit that makes fingerprints, chosen once: the system's where it is asked for or is the pinned release.</summary>
    private async Task<Fingerprinter> ChooseAsync()
    {
        var pinned = await VersionAsync().ConfigureAwait(false);
        var native = _native.Value;
        return Choice == RdkitEngineChoice.System
            ? new Fingerprinter(native!, native!.Version, pinned)
            : native is not null && native.Version == pinned ? new Fingerprinter(native, pinned, pinned) : new Fingerprinter(null, pinned, pinned);
    }

    /// <summary>Who makes fingerprints (null: MinimalLib), the release that makes them, and the pinned one.</summary>
    private sealed record Fingerprinter(RdkitNative? Native, string Version, string Pinned);

    /// <summary>
    /// The <paramref name="types"/> fingerprints of every molecule (a SMILES or a molblock), on every engine at once (Salsa.Ccr
    /// ranks on <paramref name="dispatcher"/>, or on this instance's own dispatcher, a thread per engine). A molecule RDKit cannot
    /// read, or that takes longer than its budget, gets its reason in <see cref="MoleculeFingerprints.Errors"/>; the others are unaffected.
    /// </summary>
    /// <exception cref="TimeoutException">The molecules took longer than <see cref="RdkitOptions.CallBudget"/> in all.</exception>
    public async Task<MoleculeFingerprints> FingerprintsAsync(IReadOnlyList<string> smiles, IReadOnlyCollection<FingerprintType> types, Dispatcher? dispatcher = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(smiles);
        ArgumentNullException.ThrowIfNull(types);
        if (types.Count == 0 || types.Any(t => !Types.Contains(t)))
        {
            throw new MoleculeException($"Fingerprint types must be among {string.Join(", ", Types.Select(t => t.Name))}.");
        }

        using var budget = CallBudget(cancellationToken);
        try
        {
            return await FingerprintsWithinAsync(smiles, types, dispatcher, budget.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (budget.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw OverBudget(smiles.Count);
        }
    }

    private async Task<MoleculeFingerprints> FingerprintsWithinAsync(IReadOnlyList<string> smiles, IReadOnlyCollection<FingerprintType> types, Dispatcher? dispatcher, CancellationToken cancellationToken)
    {
        var morgan = types.Contains(FingerprintType.Ecfp4);
        var maccs = types.Contains(FingerprintType.Maccs);
        var words = types.ToDictionary(t => t, t => new ulong[smiles.Count * t.Words]);
        var errors = new string?[smiles.Count];
        var fingerprinter = await _fingerprinter.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
        var rest = fingerprinter.Native is { } native
            ? await NativeFingerprintsAsync(native, smiles, morgan ? words[FingerprintType.Ecfp4] : null, maccs ? words[FingerprintType.Maccs] : null, dispatcher, cancellationToken).ConfigureAwait(false)
            : Enumerable.Range(0, smiles.Count);
        var pending = Readable(smiles, rest, errors);
        if (pending.Length > 0)
        {
            // MinimalLib answers for the rest: their fingerprints where it is the release that makes them
            // here; otherwise (the system's RDKit is chosen and refused them) only why they are refused.
            var fill = fingerprinter.Version == fingerprinter.Pinned;
            var answers = await AnswerAllAsync(pending.Select(i => smiles[i]).ToArray(), (engine, text, progress) => engine.FingerprintsAsync(text, morgan ? MorganJson : null, maccs, progress), dispatcher, cancellationToken).ConfigureAwait(false);
            for (var k = 0; k < pending.Length; k++)
            {
                if (fill || answers[k].StartsWith('!'))
                {
                    Store(answers[k], pending[k], morgan, maccs, words, errors);
                }
                else if (!ForSystem(smiles[pending[k]]))
                {
                    errors[pending[k]] = string.Create(CultureInfo.InvariantCulture,
                        $"RDKit {fingerprinter.Version} (the system's, {RdkitOptions.Section}:Engine = System) is given molecules of at most {MaxSystemLength:N0} characters here (it cannot be stopped mid-molecule); RDKit {fingerprinter.Pinned}, the default, reads this one");
                }
                else
                {
                    errors[pending[k]] = $"RDKit {fingerprinter.Version} (the system's, {RdkitOptions.Section}:Engine = System) cannot read it; RDKit {fingerprinter.Pinned} can";
                }
            }
        }

        return new MoleculeFingerprints(words, errors, fingerprinter.Version);
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
                    if (!ForSystem(smiles[i]) || Unreadable(smiles[i]) is not null || !native.TryFingerprints(smiles[i], ecfp, keys))
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
    /// <exception cref="TimeoutException">The molecules took longer than <see cref="RdkitOptions.CallBudget"/> in all.</exception>
    public async Task<(string?[] Smiles, string?[] Errors)> SmilesAsync(IReadOnlyList<string> molecules, Dispatcher? dispatcher = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(molecules);
        var smiles = new string?[molecules.Count];
        var errors = new string?[molecules.Count];
        var pending = Readable(molecules, Enumerable.Range(0, molecules.Count), errors);
        using var budget = CallBudget(cancellationToken);
        string[] answers;
        try
        {
            answers = await AnswerAllAsync(pending.Select(i => molecules[i]).ToArray(), (engine, text, progress) => engine.SmilesOfAsync(text, progress), dispatcher, budget.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (budget.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw OverBudget(molecules.Count);
        }

        for (var k = 0; k < pending.Length; k++)
        {
            if (answers[k].StartsWith('!'))
            {
                errors[pending[k]] = answers[k][1..];
            }
            else
            {
                smiles[pending[k]] = answers[k];
            }
        }

        return (smiles, errors);
    }

    /// <summary>RDKit's 2D depiction of a molecule as an SVG document.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>, or takes longer than its budget on it.</exception>
    public Task<string> SvgAsync(string smiles, int width = 250, int height = 200, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(width, 16);
        ArgumentOutOfRangeException.ThrowIfLessThan(height, 16);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(width, 4096);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(height, 4096);
        return AnswerOneAsync(smiles, (engine, text, progress) => engine.SvgAsync(text, width, height, progress), cancellationToken);
    }

    /// <summary>RDKit's molblock of a molecule (V2000, with 2D coordinates): what an SD file holds.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>, or takes longer than its budget on it.</exception>
    public async Task<string> MolBlockAsync(string smiles, CancellationToken cancellationToken = default) =>
        (await AnswerOneAsync(smiles, (engine, text, progress) => engine.MolBlockAsync(text, progress), cancellationToken).ConfigureAwait(false)).Replace('\u001e', '\n');

    /// <summary>RDKit's canonical SMILES of a molecule.</summary>
    /// <exception cref="MoleculeException">RDKit cannot read <paramref name="smiles"/>, or takes longer than its budget on it.</exception>
    public Task<string> CanonicalAsync(string smiles, CancellationToken cancellationToken = default) =>
        AnswerOneAsync(smiles, (engine, text, progress) => engine.SmilesOfAsync(text, progress), cancellationToken);

    /// <summary>Stops this instance (its dispatcher); the engines stay with the process for the next instance.</summary>
    public void Dispose()
    {
        _disposed = true;
        if (_dispatcher.IsValueCreated)
        {
            _dispatcher.Value.Dispose();
        }
    }

    /// <summary>A cancellation that also comes when a call's budget is spent.</summary>
    private CancellationTokenSource CallBudget(CancellationToken cancellationToken)
    {
        var budget = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        budget.CancelAfter(_options.CallBudget);
        return budget;
    }

    private TimeoutException OverBudget(int molecules) => new(string.Create(CultureInfo.InvariantCulture,
        $"RDKit took longer than {_options.CallBudget} ({RdkitOptions.Section}:CallBudget) on these {molecules:N0} molecules in all; send fewer at once."));
}
