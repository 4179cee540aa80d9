using Salsa.DataFiles;

namespace Salsa.Chemistry.Tests;

/// <summary>
/// One RDKit per deployment: the pinned release (MinimalLib) by default, whatever the machine has;
/// the system's C++ library only where it is chosen — then it alone makes fingerprints, and says so.
/// Where the build found the system's library, it gives the pinned release's bits and errors for every
/// kind of input the fixture holds (SMILES it reads, SMILES it refuses, molblocks, text no SMILES
/// has), under many callers at once.
/// </summary>
public sealed class RdkitNativeTests : IClassFixture<RdkitNativeTests.Engines>
{
    /// <summary>An iron complex whose fingerprints RDKit 2022.09 and 2026.09 make differently (7 ECFP4 bits each way, 3 MACCS).</summary>
    private const string IronComplex = "C1C[N+]23CCC[N+]4(C1)CC[S-]1[Fe+2]24([SH+]CC3)[S-]2CC[N+]34CCC[N+]5(CCC3)CC[SH+][Fe+2]1254";

    private readonly Engines _engines;

    public RdkitNativeTests(Engines engines) => _engines = engines;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static bool SystemHasRdkit => File.Exists("/usr/include/rdkit/GraphMol/GraphMol.h");

    [Fact]
    public void SystemVersion_WhereTheSystemHasRdkitsHeaders_IsTheLibrarysRelease()
    {
        // The build compiles the shim wherever librdkit-dev is installed (CI installs it): then the
        // native library must load, or the choice of the system's RDKit would silently be lost.
        if (!SystemHasRdkit)
        {
            Assert.Null(_engines.MinimalLib.SystemVersion);
            return;
        }

        Assert.Matches(@"^\d{4}\.\d{2}\.\d+", _engines.MinimalLib.SystemVersion);
    }

    [Fact]
    public async Task Pinned_WhateverTheSystemHas_FingerprintsWithThePinnedRelease()
    {
        var pinned = await _engines.MinimalLib.VersionAsync(Token);

        Assert.Equal("2026.09.1", pinned);
        Assert.Equal(pinned, await _engines.MinimalLib.FingerprintsVersionAsync(Token));
        Assert.Equal(_engines.MinimalLib.SystemVersion == pinned, await _engines.MinimalLib.UsesSystemAsync(Token));
        var computed = await _engines.MinimalLib.FingerprintsAsync([IronComplex, "CCO"], Rdkit.Types, cancellationToken: Token);
        Assert.Equal(pinned, computed.RdkitVersion);
    }

    [Fact]
    public async Task System_WhereItIsNotHere_RefusesToStart_ElseItsReleaseMakesEveryFingerprint()
    {
        if (!SystemHasRdkit)
        {
            var refused = Assert.Throws<InvalidOperationException>(() => new Rdkit(1, options: new RdkitOptions { Engine = RdkitEngineChoice.System }));
            Assert.Contains("Salsa:Rdkit:Engine is System", refused.Message, StringComparison.Ordinal);
            return;
        }

        var system = _engines.System!;
        Assert.True(await system.UsesSystemAsync(Token));
        Assert.Equal(system.SystemVersion, await system.FingerprintsVersionAsync(Token));
        var theirs = await system.FingerprintsAsync([IronComplex], Rdkit.Types, cancellationToken: Token);
        var ours = await _engines.MinimalLib.FingerprintsAsync([IronComplex], Rdkit.Types, cancellationToken: Token);

        // Two releases, two answers: which is why a deployment has one, and every result names it.
        Assert.Equal(system.SystemVersion, theirs.RdkitVersion);
        Assert.NotEqual(ours.RdkitVersion, theirs.RdkitVersion);
        Assert.False(theirs.Fingerprint(FingerprintType.Ecfp4, 0).SequenceEqual(ours.Fingerprint(FingerprintType.Ecfp4, 0)));
    }

    [Fact]
    public async Task Fingerprints_EveryKindOfInput_TheSystemsReleaseGivesThePinnedBitsAndRefusals()
    {
        if (_engines.System is not { } system)
        {
            return; // nothing to compare: the machine has only the pinned release
        }

        var shipped = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var molecules = shipped.Smiles.ToList();
        var block = await _engines.MinimalLib.MolBlockAsync(shipped.Smiles[3], Token);
        string[] odd =
        [
            "C1CC", "not a molecule", "c1cccc1", "", " ", "C(C)(C)(C)(C)C", "CC\0O", "CC\nO", block,
            "C[C@H](N)C(=O)O", "[Na+].[Cl-]", "Cé", "[2H]C([2H])([2H])O", string.Concat(Enumerable.Repeat("C", 3000)),
            string.Concat(Enumerable.Repeat("c1ccccc1", 200)), "C1CC1" + new string('(', 500), new string('C', Rdkit.MaxSmilesLength + 1),
            "C1CC1" + new string('(', 490), string.Concat(Enumerable.Repeat("c1ccccc1", 62)),
        ];
        for (var i = 0; i < odd.Length; i++)
        {
            molecules.Insert(i * 31 % molecules.Count, odd[i]);
        }

        foreach (var types in new[] { Rdkit.Types, [FingerprintType.Ecfp4], [FingerprintType.Maccs] })
        {
            var native = await system.FingerprintsAsync(molecules, types, cancellationToken: Token);
            var minimal = await _engines.MinimalLib.FingerprintsAsync(molecules, types, cancellationToken: Token);

            // The same molecules refused (each release in its own words where only one reads it), but
            // for those too large to give the system's library, which cannot be stopped mid-molecule.
            var small = Enumerable.Range(0, molecules.Count).Where(i => Rdkit.ForSystem(molecules[i])).ToList();
            Assert.Equal(small.Select(i => minimal.Errors[i] is null), small.Select(i => native.Errors[i] is null));
            Assert.All(Enumerable.Range(0, molecules.Count).Except(small).Where(i => minimal.Errors[i] is null),
                i => Assert.Contains("cannot be stopped mid-molecule", native.Errors[i], StringComparison.Ordinal));

            // Past the length RDKit is asked about: refused with the reason, before any work.
            Assert.Contains("at most 200,000 are read here", minimal.Errors[molecules.IndexOf(new string('C', Rdkit.MaxSmilesLength + 1))], StringComparison.Ordinal);
            foreach (var type in types)
            {
                Assert.All(small, i => Assert.True(minimal.Fingerprint(type, i).SequenceEqual(native.Fingerprint(type, i)), $"molecule {i}, {type.Name}"));
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
                var rdkit = caller % 3 == 0 || _engines.System is null ? _engines.MinimalLib : _engines.System;
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

    /// <summary>One instance of each kind for the whole class, two engines each (the system's where it is here).</summary>
    public sealed class Engines : IDisposable
    {
        public Rdkit? System { get; } = SystemHasRdkit ? new(engines: 2, options: new RdkitOptions { Engine = RdkitEngineChoice.System }) : null;

        public Rdkit MinimalLib { get; } = new(engines: 2);

        public void Dispose()
        {
            System?.Dispose();
            MinimalLib.Dispose();
        }
    }
}
