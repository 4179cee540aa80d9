using System.Runtime.InteropServices;
using System.Text;

namespace Salsa.Chemistry;

/// <summary>
/// RDKit's own C++ (the system's librdkit, Debian's <c>librdkit1</c>) through Salsa.Chemistry's
/// shim (<c>native/salsa_rdkit.cpp</c>, compiled by the build where <c>librdkit-dev</c> and a C++
/// compiler are present): fingerprints of one SMILES per call, written straight into the caller's
/// words. Absent (<see cref="Load"/> returns null) where the shim was not built or the system has no
/// librdkit: <see cref="Rdkit"/> then uses MinimalLib alone. Thread-safe.
/// </summary>
internal sealed unsafe class RdkitNative
{
    public const string LibraryFile = "libsalsa_rdkit.so";

    // The longest SMILES passed on the stack; longer ones are copied to a rented buffer.
    private const int StackBytes = 1024;
    private readonly delegate* unmanaged<byte*, int, byte*, byte*, int> _fingerprints;

    private RdkitNative(nint library)
    {
        _fingerprints = (delegate* unmanaged<byte*, int, byte*, byte*, int>)NativeLibrary.GetExport(library, "salsa_rdkit_fingerprints");
        var version = (delegate* unmanaged<byte*>)NativeLibrary.GetExport(library, "salsa_rdkit_version");
        Version = Marshal.PtrToStringUTF8((nint)version()) ?? "unknown";
    }

    /// <summary>The system's RDKit release (<c>2022.09.3</c> on Debian 12).</summary>
    public string Version { get; }

    /// <summary>The shim in <paramref name="directory"/>, loaded once per process; null where it or librdkit is missing.</summary>
    public static RdkitNative? Load(string directory)
    {
        // The shim writes RDKit's bytes in the words' order on a little-endian machine only.
        if (!OperatingSystem.IsLinux() || !BitConverter.IsLittleEndian)
        {
            return null;
        }

        var path = Path.Combine(directory, LibraryFile);
        return File.Exists(path) && NativeLibrary.TryLoad(path, out var library) ? new RdkitNative(library) : null;
    }

    /// <summary>
    /// ECFP4 (Morgan radius 2 folded to <see cref="DataFiles.FingerprintType.Ecfp4"/>'s bits) into
    /// <paramref name="morgan"/> unless it is empty, MACCS into <paramref name="maccs"/> unless it is
    /// empty (both zeroed words of their type). False where RDKit here did not make them (it cannot
    /// read the molecule — a SMILES, or a molblock — or the text holds a NUL): MinimalLib then says why.
    /// </summary>
    public bool TryFingerprints(string smiles, Span<ulong> morgan, Span<ulong> maccs)
    {
        if (smiles.Length == 0 || smiles.Contains('\0', StringComparison.Ordinal))
        {
            return false;
        }

        if ((!morgan.IsEmpty && morgan.Length < DataFiles.FingerprintType.Ecfp4.Words) || (!maccs.IsEmpty && maccs.Length < DataFiles.FingerprintType.Maccs.Words))
        {
            throw new ArgumentException("A fingerprint's words are fewer than its type's.");
        }

        var length = Encoding.UTF8.GetMaxByteCount(smiles.Length) + 1;
        var rented = length > StackBytes ? new byte[length] : null;
        var text = rented ?? stackalloc byte[StackBytes];
        var written = Encoding.UTF8.GetBytes(smiles.Contains('\r', StringComparison.Ordinal) ? smiles.ReplaceLineEndings("\n") : smiles, text);
        text[written] = 0;
        fixed (byte* smilesBytes = text)
        fixed (ulong* morganWords = morgan)
        fixed (ulong* maccsWords = maccs)
        {
            return _fingerprints(smilesBytes, morgan.IsEmpty ? 0 : DataFiles.FingerprintType.Ecfp4.Bits, (byte*)morganWords, maccs.IsEmpty ? null : (byte*)maccsWords) == 0;
        }
    }
}
