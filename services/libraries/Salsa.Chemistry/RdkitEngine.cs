using System.Reflection;
using Microsoft.ClearScript;
using Microsoft.ClearScript.JavaScript;
using Microsoft.ClearScript.V8;

namespace Salsa.Chemistry;

/// <summary>
/// One V8 isolate with RDKit MinimalLib loaded and <c>Rdkit.js</c> beside it. An isolate runs one
/// call at a time: <see cref="Rdkit"/> keeps one per core and hands each to one caller at a time.
/// </summary>
internal sealed class RdkitEngine : IDisposable
{
    private readonly V8ScriptEngine _engine;
    private readonly ScriptObject _script;

    private RdkitEngine(V8ScriptEngine engine, string version)
    {
        _engine = engine;
        _script = (ScriptObject)engine.Script;
        Version = version;
    }

    public string Version { get; }

    public static async Task<RdkitEngine> CreateAsync(RdkitFiles files)
    {
        var engine = new V8ScriptEngine(V8ScriptEngineFlags.EnableTaskPromiseConversion);
        try
        {
            engine.Execute("RDKit_minimal.js", files.Script);
            engine.Execute("Rdkit.js", Glue.Value);
            // The copy of the WebAssembly handed to V8 is released now, not left to a finalizer that
            // might run after the isolate is gone.
            var wasm = (ITypedArray<byte>)engine.Evaluate($"new Uint8Array({files.WebAssembly.Length})");
            object version;
            try
            {
                wasm.WriteBytes(files.WebAssembly, 0, (ulong)files.WebAssembly.Length, 0);
                version = await ((Task<object>)((ScriptObject)engine.Script).InvokeMethod("salsaLoad", wasm)).ConfigureAwait(false);
            }
            finally
            {
                (wasm as IDisposable)?.Dispose();
            }

            return new RdkitEngine(engine, (string)version);
        }
        catch
        {
            engine.Dispose();
            throw;
        }
    }

    /// <summary>Per line of <paramref name="smiles"/>: the fingerprints' hex, space-separated, or <c>!</c> and RDKit's reason.</summary>
    public string Fingerprints(string smiles, string? morganJson, bool maccs) =>
        (string)_script.InvokeMethod("salsaFingerprints", smiles, morganJson ?? string.Empty, maccs);

    public string Svg(string smiles, int width, int height) => (string)_script.InvokeMethod("salsaSvg", smiles, width, height);

    public string Canonical(string smiles) => (string)_script.InvokeMethod("salsaCanonical", smiles);

    public string MolBlock(string smiles) => (string)_script.InvokeMethod("salsaMolBlock", smiles);

    public string SmilesOf(string molecules) => (string)_script.InvokeMethod("salsaSmilesOf", molecules);

    public void Dispose() => _engine.Dispose();

    private static readonly Lazy<string> Glue = new(() =>
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("Salsa.Chemistry.Rdkit.js")
            ?? throw new InvalidOperationException("Salsa.Chemistry.Rdkit.js is not embedded in the assembly.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    });
}

/// <summary>RDKit MinimalLib's two files, read once per process.</summary>
internal sealed record RdkitFiles(string Script, byte[] WebAssembly)
{
    /// <summary>The files the build copied beside the assembly (<c>rdkit/</c>).</summary>
    public static RdkitFiles Load(string? directory = null)
    {
        directory = DirectoryOf(directory);
        var script = Path.Combine(directory, "RDKit_minimal.js");
        var wasm = Path.Combine(directory, "RDKit_minimal.wasm");
        if (!File.Exists(script) || !File.Exists(wasm))
        {
            throw new FileNotFoundException(
                $"RDKit MinimalLib is not in {directory}: the build copies it there from the npm package @rdkit/rdkit (services/libraries/Salsa.Chemistry/rdkit); build the project with npm on PATH.",
                script);
        }

        return new RdkitFiles(File.ReadAllText(script), File.ReadAllBytes(wasm));
    }

    /// <summary>The folder of RDKit's files: <paramref name="directory"/>, or <c>rdkit/</c> beside the assembly.</summary>
    public static string DirectoryOf(string? directory) => Path.GetFullPath(directory ?? Path.Combine(AppContext.BaseDirectory, "rdkit"));
}
