using System.Collections.Concurrent;
using System.Reflection;
using Microsoft.ClearScript;
using Microsoft.ClearScript.JavaScript;
using Microsoft.ClearScript.V8;

namespace Salsa.Chemistry;

/// <summary>
/// One V8 isolate with RDKit MinimalLib loaded and <c>Rdkit.js</c> beside it, and the thread it runs
/// on. An isolate runs one call at a time: <see cref="Rdkit"/> keeps one per core and hands each to
/// one caller at a time.
/// </summary>
/// <remarks>
/// Design: every call runs on the engine's own thread, whose stack is <see cref="ThreadStackBytes"/>,
/// so RDKit's recursion on a large molecule (a 10,000-atom chain) has room whatever thread asked;
/// V8 is told it may use <see cref="ScriptStackBytes"/> of it, and stops a deeper molecule with a
/// RangeError. RDKit's C++ stack (MinimalLib's own is 64 KiB) is moved into a block of
/// <see cref="RdkitStackBytes"/> of its heap, four times the script's: RDKit's frames are smaller than
/// the machine's for the same depth, so the machine stack runs out first and RDKit's never overruns
/// into its heap. A call is timed per molecule by a watchdog that interrupts the isolate when one
/// molecule takes longer than its budget; an interrupted or failed engine is <see cref="Broken"/>
/// and never used again. The queue is the only shared state: callers post, the thread takes.
/// </remarks>
internal sealed class RdkitEngine : IDisposable
{
    public const int ThreadStackBytes = 256 << 20;
    public const int ScriptStackBytes = 64 << 20;
    public const int RdkitStackBytes = 4 * ScriptStackBytes;

    private readonly V8ScriptEngine _engine;
    private readonly ScriptObject _script;
    private readonly BlockingCollection<Action> _calls;

    private RdkitEngine(V8ScriptEngine engine, BlockingCollection<Action> calls, string version)
    {
        _engine = engine;
        _calls = calls;
        _script = (ScriptObject)engine.Script;
        Version = version;
    }

    public string Version { get; }

    /// <summary>Interrupted, or failed in a way that leaves RDKit's memory in no known state: not to be used again.</summary>
    public bool Broken { get; private set; }

    public static async Task<RdkitEngine> CreateAsync(RdkitFiles files)
    {
        var calls = new BlockingCollection<Action>();
        var thread = new Thread(() => Serve(calls), ThreadStackBytes) { IsBackground = true, Name = "Salsa RDKit engine" };
        thread.Start();
        try
        {
            var engine = await Post(calls, () => new V8ScriptEngine(V8ScriptEngineFlags.EnableTaskPromiseConversion) { MaxRuntimeStackUsage = ScriptStackBytes }).ConfigureAwait(false);
            try
            {
                var version = await Post(calls, () => Load(engine, files)).Unwrap().ConfigureAwait(false);
                return new RdkitEngine(engine, calls, version);
            }
            catch
            {
                engine.Dispose();
                throw;
            }
        }
        catch
        {
            calls.CompleteAdding();
            throw;
        }
    }

    private static async Task<string> Load(V8ScriptEngine engine, RdkitFiles files)
    {
        engine.Execute("RDKit_minimal.js", files.Script);
        engine.Execute("Rdkit.js", Glue.Value);
        // The copy of the WebAssembly handed to V8 is released now, not left to a finalizer that
        // might run after the isolate is gone.
        var wasm = (ITypedArray<byte>)engine.Evaluate($"new Uint8Array({files.WebAssembly.Length})");
        try
        {
            wasm.WriteBytes(files.WebAssembly, 0, (ulong)files.WebAssembly.Length, 0);
            var loaded = (Task<object>)((ScriptObject)engine.Script).InvokeMethod("salsaLoad", wasm, files.MallocExport, files.StackRestoreExport, RdkitStackBytes);
            return (string)await loaded.ConfigureAwait(false);
        }
        finally
        {
            (wasm as IDisposable)?.Dispose();
        }
    }

    /// <summary>Per line of <paramref name="smiles"/>: the fingerprints' hex, space-separated, or <c>!</c> and RDKit's reason (see <see cref="RunAsync"/>).</summary>
    public Task<string> FingerprintsAsync(string smiles, string? morganJson, bool maccs, RdkitProgress progress) =>
        RunAsync(() => (string)_script.InvokeMethod("salsaFingerprints", smiles, morganJson ?? string.Empty, maccs, progress.Callback), progress);

    public Task<string> SvgAsync(string smiles, int width, int height, RdkitProgress progress) =>
        RunAsync(() => (string)_script.InvokeMethod("salsaSvg", smiles, width, height, progress.Callback), progress);

    /// <summary>The molblock, its line breaks as U+001E.</summary>
    public Task<string> MolBlockAsync(string smiles, RdkitProgress progress) =>
        RunAsync(() => (string)_script.InvokeMethod("salsaMolBlock", smiles, progress.Callback), progress);

    public Task<string> SmilesOfAsync(string molecules, RdkitProgress progress) =>
        RunAsync(() => (string)_script.InvokeMethod("salsaSmilesOf", molecules, progress.Callback), progress);

    /// <summary>
    /// Runs a call on the engine's thread, each of its molecules timed: one that takes longer than
    /// <see cref="RdkitProgress.Budget"/> interrupts the call (<see cref="ScriptInterruptedException"/>,
    /// <see cref="RdkitProgress.TimedOut"/> set). A call whose answer ends in a line starting
    /// <c>!!</c> failed in the engine itself at that molecule. Either leaves the engine
    /// <see cref="Broken"/>.
    /// </summary>
    private async Task<string> RunAsync(Func<string> call, RdkitProgress progress)
    {
        ObjectDisposedException.ThrowIf(_calls.IsAddingCompleted, this);
        using var watchdog = new Timer(_ =>
        {
            if (progress.Overdue())
            {
                _engine.Interrupt();
            }
        }, null, progress.CheckPeriod, progress.CheckPeriod);
        try
        {
            var answer = await Post(_calls, call).ConfigureAwait(false);
            var last = answer.LastIndexOf('\n');
            if (answer.AsSpan(last + 1).StartsWith("!!"))
            {
                Broken = true;
            }

            return answer;
        }
        catch (ScriptEngineException)
        {
            Broken = true;
            throw;
        }
        catch (ScriptInterruptedException)
        {
            Broken = true;
            throw;
        }
    }

    /// <summary>Stops the engine's thread and its isolate once the calls queued before are done.</summary>
    public void Dispose()
    {
        if (_calls.IsAddingCompleted)
        {
            return;
        }

        try
        {
            _calls.Add(_engine.Dispose);
        }
        finally
        {
            _calls.CompleteAdding();
        }
    }

    private static Task<T> Post<T>(BlockingCollection<Action> calls, Func<T> call)
    {
        var done = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        calls.Add(() =>
        {
            try
            {
                done.SetResult(call());
            }
#pragma warning disable CA1031 // Handed to the caller, on whose side it is thrown.
            catch (Exception e)
#pragma warning restore CA1031
            {
                done.SetException(e);
            }
        });
        return done.Task;
    }

    private static void Serve(BlockingCollection<Action> calls)
    {
        foreach (var call in calls.GetConsumingEnumerable())
        {
            call();
        }

        calls.Dispose();
    }

    private static readonly Lazy<string> Glue = new(() =>
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("Salsa.Chemistry.Rdkit.js")
            ?? throw new InvalidOperationException("Salsa.Chemistry.Rdkit.js is not embedded in the assembly.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    });
}
