using System.Text.RegularExpressions;

namespace Salsa.Chemistry;

/// <summary>
/// RDKit MinimalLib's two files, read once per process, and the minified names its script gives two
/// of the WebAssembly's exports (<c>_malloc</c>, <c>__emscripten_stack_restore</c>), with which an
/// engine gives RDKit a larger stack.
/// </summary>
internal sealed partial record RdkitFiles(string Script, byte[] WebAssembly, string MallocExport, string StackRestoreExport)
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

        var text = File.ReadAllText(script);
        return new RdkitFiles(text, File.ReadAllBytes(wasm), Export(text, "_malloc"), Export(text, "__emscripten_stack_restore"));
    }

    /// <summary>The folder of RDKit's files: <paramref name="directory"/>, or <c>rdkit/</c> beside the assembly.</summary>
    public static string DirectoryOf(string? directory) => Path.GetFullPath(directory ?? Path.Combine(AppContext.BaseDirectory, "rdkit"));

    /// <summary>The export's minified name, from the script's <c>name=wasmExports["x"]</c>.</summary>
    private static string Export(string script, string name) =>
        ExportAssignment().Matches(script).FirstOrDefault(m => m.Groups["name"].Value == name)?.Groups["export"].Value
            ?? throw new InvalidOperationException($"RDKit MinimalLib's script names no export for {name}: this release of MinimalLib is not the one Salsa.Chemistry was made for (the npm lockfile pins it).");

    [GeneratedRegex(@"(?<name>[A-Za-z_$][\w$]*)=wasmExports\[""(?<export>[^""]+)""\]")]
    private static partial Regex ExportAssignment();
}
