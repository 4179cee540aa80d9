using Salsa.DataFiles;

namespace Salsa.Chemistry.Tests;

/// <summary>
/// RDKit's C++ library beside MinimalLib: where the build found it, fingerprints come from it; they
/// are MinimalLib's bits and errors for every kind of input (SMILES it reads, SMILES it refuses,
/// molblocks, text no SMILES has), under many callers at once.
/// </summary>
public sealed class RdkitNativeTests : IClassFixture<RdkitNativeTests.Engines>
{
    private readonly Engines _engines;

    public RdkitNativeTests(Engines engines) => _engines = engines;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public void NativeVersion_WhereTheSystemHasRdkitsHeaders_IsTheLibrarysRelease()
    {
        // The build compiles the shim wherever librdkit-dev is installed (CI installs it): then the
        // native library must load, or the fast path would silently be lost.
        if (!File.Exists("/usr/include/rdkit/GraphMol/GraphMol.h"))
        {
            Assert.Null(_engines.Native.NativeVersion);
            return;
        }

        Assert.Matches(@"^\d{4}\.\d{2}\.\d+", _engines.Native.NativeVersion);
        Assert.Null(_engines.MinimalLib.NativeVersion);
    }

    [Fact]
    public async Task Fingerprints_EveryKindOfInput_NativeGivesMinimalLibsBitsAndErrors()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var molecules = shipped.Smiles.ToList();
        var block = await _engines.MinimalLib.MolBlockAsync(shipped.Smiles[3], Token);
        string[] odd =
        [
            "C1CC", "not a molecule", "c1cccc1", "", " ", "C(C)(C)(C)(C)C", "CC\0O", "CC\nO", block,
            "C[C@H](N)C(=O)O", "[Na+].[Cl-]", "Cé", "[2H]C([2H])([2H])O", string.Concat(Enumerable.Repeat("C", 3000)),
            string.Concat(Enumerable.Repeat("c1ccccc1", 200)), "C1CC1" + new string('(', 500), new string('C', Rdkit.MaxSmilesLength),
            "C1CC1" + new string('(', 490), string.Concat(Enumerable.Repeat("c1ccccc1", 62)),
        ];
        for (var i = 0; i < odd.Length; i++)
        {
            molecules.Insert(i * 31 % molecules.Count, odd[i]);
        }

        foreach (var types in new[] { Rdkit.Types, [FingerprintType.Ecfp4], [FingerprintType.Maccs] })
        {
            var native = await _engines.Native.FingerprintsAsync(molecules, types, cancellationToken: Token);
            var minimal = await _engines.MinimalLib.FingerprintsAsync(molecules, types, cancellationToken: Token);

            Assert.Equal(minimal.Errors, native.Errors);
            // Past the length RDKit is asked about: refused with the reason, before any work.
            Assert.All(odd.Where(o => o.Length > Rdkit.MaxSmilesLength && !o.Contains('\n')), o => Assert.Contains("at most 500", native.Errors[molecules.IndexOf(o)], StringComparison.Ordinal));
            Assert.Null(native.Errors[molecules.IndexOf(new string('C', Rdkit.MaxSmilesLength))]);
            foreach (var type in types)
            {
                Assert.Equal(minimal.Words[type], native.Words[type]);
            }
        }
    }

    [Fact]
    public async Task ManyCallersOnBothPathsAtOnce_EachGetsItsOwnAnswers_RoundAfterRound()
    {
        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var reference = await _engines.MinimalLib.FingerprintsAsync(shipped.Smiles, Rdkit.Types, cancellationToken: Token);

        // 24 callers × 8 rounds, on separate native instances and the shared one, each with its own
        // slice and a refused molecule at its own place (MinimalLib answers for it in the same call).
        for (var round = 0; round < 8; round++)
        {
            await Task.WhenAll(Enumerable.Range(0, 24).Select(caller => Task.Run(async () =>
            {
                var start = (caller * 17 + round * 5) % 450;
                var slice = shipped.Smiles.Skip(start).Take(50).ToList();
                var bad = (caller + round) % slice.Count;
                slice.Insert(bad, "C1CC");
                var rdkit = caller % 3 == 0 ? _engines.MinimalLib : _engines.Native;
                var computed = await rdkit.FingerprintsAsync(slice, Rdkit.Types, cancellationToken: Token);
                Assert.Contains("unclosed ring", computed.Errors[bad], StringComparison.OrdinalIgnoreCase);
                for (var i = 0; i < slice.Count; i++)
                {
                    if (i == bad)
                    {
                        continue;
                    }

                    var compound = start + (i < bad ? i : i - 1);
                    Assert.Null(computed.Errors[i]);
                    foreach (var type in Rdkit.Types)
                    {
                        Assert.True(computed.Fingerprint(type, i).SequenceEqual(reference.Fingerprint(type, compound)), $"round {round}, caller {caller}, molecule {i}, {type.Name}");
                    }
                }
            }, Token)));
        }
    }

    /// <summary>One instance of each kind for the whole class, two engines each.</summary>
    public sealed class Engines : IDisposable
    {
        public Rdkit Native { get; } = new(engines: 2);

        public Rdkit MinimalLib { get; } = new(engines: 2, native: false);

        public void Dispose()
        {
            Native.Dispose();
            MinimalLib.Dispose();
        }
    }
}
