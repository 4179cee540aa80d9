using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text.Json;
using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.DataFiles;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Store;

namespace Salsa.Chem;

/// <summary>
/// Imports compound files: a compounds dataset (ids, SMILES) and, for every fingerprint type the
/// file ships, a binary dataset (labels = ids) tied to it through the compounds' metadata
/// (<c>fingerprints.&lt;type&gt;</c>). Imports are idempotent (content-derived ids).
/// </summary>
/// <remarks>
/// The shipped files carry their fingerprints (RDKit ECFP4 1024-bit and MACCS 167-bit); a user's
/// file is fingerprinted here by RDKit itself (<see cref="Rdkit"/>), to the same bits.
/// </remarks>
public sealed class CompoundCatalog(DatasetCatalog datasets, IOptions<ServiceLimits> serviceLimits, DataDirectory data, Rdkit rdkit, UserFiles files)
{
    private readonly ServiceLimits _limits = serviceLimits.Value;

    public const string FingerprintKeyPrefix = "fingerprints.";

    /// <summary>The chem service's spans (its host exports the source named after it): RDKit's work on an upload.</summary>
    internal static readonly ActivitySource Activities = new(ChemService.Name);

    /// <summary>Metadata of an upload whose file had other columns: the dataset of its compounds' properties (JSON per compound), and their names.</summary>
    public const string PropertiesKey = "properties";

    public const string PropertyColumnsKey = "property_columns";

    /// <summary>Metadata of an upload RDKit could not read all of: the dataset listing the compounds it left out (JSON per compound).</summary>
    public const string RefusedKey = "refused_compounds";

    /// <summary>
    /// The share of a file's compounds RDKit must read for the file to be stored: below it, the file
    /// is far more likely something else (another format, random bytes) than a few bad molecules.
    /// </summary>
    public const double MinReadableShare = 0.5;

    private static readonly IReadOnlyList<FingerprintTypeView> s_types =
    [
        new(FingerprintType.Ecfp4.Name, FingerprintType.Ecfp4.Bits, "RDKit Morgan radius 2 (ECFP4), folded to 1024 bits; shipped with the data, computed by RDKit for uploads", Options: Rdkit.OptionsOf(FingerprintType.Ecfp4)),
        new(FingerprintType.Maccs.Name, FingerprintType.Maccs.Bits, "RDKit MACCS keys, 167 bits; shipped with the data, computed by RDKit for uploads", Options: Rdkit.OptionsOf(FingerprintType.Maccs)),
    ];

    /// <summary>The fingerprint types this service makes, with the RDKit release that makes them here.</summary>
    public async Task<IReadOnlyList<FingerprintTypeView>> TypesAsync(CancellationToken cancellationToken)
    {
        var version = await rdkit.FingerprintsVersionAsync(cancellationToken);
        return [.. s_types.Select(t => t with { RdkitVersion = version })];
    }

    /// <summary>One of: a shipped source, a user's file where it is (fingerprinted by RDKit), a stored compounds dataset.</summary>
    public async Task<DatasetInfo> ImportAsync(CompoundImportRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        var given = new[] { !string.IsNullOrEmpty(request.Source), !string.IsNullOrEmpty(request.Location), request.DatasetId is not null }.Count(g => g);
        if (given != 1)
        {
            throw new ArgumentException($"An import names one of source (a compound file: {string.Join(", ", CompoundSource.Shipped.Select(s => s.Name))}), location (a compound file's path or https URL) or datasetId (a stored compounds dataset); this one names {given}.");
        }

        if (!string.IsNullOrEmpty(request.Location))
        {
            var (file, source) = await files.OpenAsync(request.Location, request.Name, cancellationToken);
            await using (file)
            {
                return (await UploadAsync(file, source, request.Format, request.Fingerprints, cancellationToken)).Compounds;
            }
        }

        if (request.DatasetId is { } id)
        {
            var info = await datasets.GetRequiredAsync(id, cancellationToken);
            return info.Kind == DatasetKind.Compounds && !info.Metadata.ContainsKey("compounds_dataset") ? info
                : throw new ArgumentException($"Dataset {info.Id} is {DatasetCatalog.KindName(info.Kind)}; the chemistry mashup takes a compounds dataset (an import or a compound upload).");
        }

        return await ImportAsync(request.Source, request.Limit, cancellationToken);
    }

    public async Task<DatasetInfo> ImportAsync(string? source, int limit, CancellationToken cancellationToken)
    {
        var file = CompoundSource.Shipped.FirstOrDefault(s => s.Name == source)
            ?? throw new ArgumentException($"Unknown compound source '{source}': use one of {string.Join(", ", CompoundSource.Shipped.Select(s => s.Name))}.");
        if (limit < 0)
        {
            throw new ArgumentException($"The limit must be 0 (all) or a positive number of compounds; it is {limit}.");
        }

        // Checked before anything is read; ids follow the file's content, so they are the same on every machine.
        var shipped = data.Check(file.File);
        var stamp = string.Join('|', file.Name, shipped.Entry.Sha256);
        Guid IdOf(int take) => DatasetIds.For("compounds", stamp, take.ToString(CultureInfo.InvariantCulture));
        if (await datasets.FindAsync(IdOf(limit), cancellationToken) is { } existing)
        {
            return existing;
        }

        // One compound past the limit tells whether the limit cut the file; a limit that does not is
        // the whole file, which is imported (or found) once, not again under another id.
        var set = CompoundSet.ReadFile(shipped.FullPath, limit == 0 ? int.MaxValue : (int)Math.Min(limit + 1L, int.MaxValue));
        if (limit != 0 && set.Count > limit)
        {
            set = set.Take(limit);
        }
        else if (limit != 0)
        {
            limit = 0;
            if (await datasets.FindAsync(IdOf(0), cancellationToken) is { } whole)
            {
                return whole;
            }
        }

        var compoundsId = IdOf(limit);
        _limits.CheckPoints(set.Count, FingerprintType.Ecfp4.Bits);
        var name = limit == 0 ? $"compounds-{file.Name}" : $"compounds-{file.Name}-{limit}";
        return await StoreAsync(set, compoundsId, name, new Dictionary<string, string> { ["compound_source"] = file.Name }, CompoundSource.ShippedRdkitVersion,
            $"compound import: {Path.GetFileName(file.File)}", type => $"{type.Name} fingerprints shipped in {Path.GetFileName(file.File)}", cancellationToken);
    }

    /// <summary>
    /// Imports a user's compound file (<see cref="CompoundFile"/>: SMILES lines or CSV, plain or
    /// gzip), fingerprinted by RDKit on every core: the compounds RDKit reads become a compounds
    /// dataset with a fingerprint dataset per asked type, those it cannot read are returned with
    /// their line and RDKit's reason. A file with a malformed row, or one RDKit reads less than
    /// <see cref="MinReadableShare"/> of, stores nothing. The same bytes under the same name and
    /// types are the same dataset, found before the file is read.
    /// </summary>
    public async Task<CompoundUpload> UploadAsync(Stream file, UserFileSource source, string? format, string? fingerprints, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(file);
        ArgumentNullException.ThrowIfNull(source);
        var name = source.Name;
        if (string.IsNullOrWhiteSpace(name))
        {
            throw new ArgumentException("An upload needs a name (the dataset's).");
        }

        var parsedFormat = CompoundFile.ParseFormat(format);
        var types = ParseTypes(fingerprints);
        await datasets.RequireRoomAsync(cancellationToken);
        // The bytes name the dataset: the same file again is found before it is even read.
        if (!file.CanSeek)
        {
            throw new InvalidOperationException("An upload is read from a buffered (seekable) file.");
        }

        var bytesHash = Convert.ToHexString(await SHA256.HashDataAsync(file, cancellationToken));
        file.Position = 0;
        // ... and the RDKit release that fingerprints it: another release's fingerprints are another dataset.
        var release = await rdkit.FingerprintsVersionAsync(cancellationToken);
        var compoundsId = DatasetIds.For("compound-upload", name, string.Join(',', types.Select(t => t.Name)), bytesHash, "rdkit " + release);
        if (await datasets.FindAsync(compoundsId, cancellationToken) is { } uploaded)
        {
            return new CompoundUpload(uploaded, await RefusedAsync(uploaded, cancellationToken));
        }

        var records = new List<CompoundRecord>();
        foreach (var record in CompoundFile.Read(file, parsedFormat, source))
        {
            records.Add(record);
            if (records.Count % 4096 == 0)
            {
                _limits.CheckPoints(records.Count, FingerprintType.Ecfp4.Bits);
            }
        }

        _limits.CheckPoints(records.Count, FingerprintType.Ecfp4.Bits);
        if (records.Count == 0)
        {
            throw new ArgumentException($"{source} holds no compounds.");
        }

        MoleculeFingerprints computed;
        using (var span = Activities.StartActivity("rdkit fingerprints"))
        {
            span?.SetTag("salsa.molecules", records.Count);
            span?.SetTag("salsa.fingerprint_types", string.Join(',', types.Select(t => t.Name)));
            try
            {
                computed = await rdkit.FingerprintsAsync([.. records.Select(r => r.Smiles)], types, cancellationToken: cancellationToken);
            }
            catch (TimeoutException over)
            {
                throw new LimitExceededException($"{source}: {over.Message} Nothing was stored.");
            }
        }

        // What RDKit says of a molecule quotes it: a file the service read from where it lies is not quoted.
        var refused = records.Select((r, i) => (r, i)).Where(p => computed.Errors[p.i] is not null)
            .Select(p => source.Quotable
                ? new RefusedCompound(p.r.Line, p.r.Id, p.r.IsMolBlock ? string.Empty : p.r.Smiles, computed.Errors[p.i]!)
                : new RefusedCompound(p.r.Line, string.Empty, string.Empty, "RDKit could not read the molecule."))
            .ToList();
        var kept = Enumerable.Range(0, records.Count).Where(i => computed.Errors[i] is null).ToList();
        if (kept.Count < MinReadableShare * records.Count)
        {
            var first = refused[0];
            throw new ArgumentException(string.Create(CultureInfo.InvariantCulture,
                $"RDKit read {kept.Count:N0} of the {records.Count:N0} compounds of {source}, less than {MinReadableShare:P0}: it is more likely not a compound file, or not in the format asked for, than a few bad molecules, so nothing is stored. Line {first.Line}: {first.Reason}"));
        }

        // An SD file's molecules are stored as RDKit's canonical SMILES of their molblocks.
        var smiles = kept.Select(i => records[i].Smiles).ToArray();
        var blocks = kept.Select((i, k) => (i, k)).Where(p => records[p.i].IsMolBlock).ToList();
        if (blocks.Count > 0)
        {
            string?[] canonical;
            try
            {
                (canonical, _) = await rdkit.SmilesAsync([.. blocks.Select(p => records[p.i].Smiles)], cancellationToken: cancellationToken);
            }
            catch (TimeoutException over)
            {
                throw new LimitExceededException($"{source}: {over.Message} Nothing was stored.");
            }
            for (var b = 0; b < blocks.Count; b++)
            {
                smiles[blocks[b].k] = canonical[b] ?? throw new InvalidOperationException($"RDKit read the molblock at line {records[blocks[b].i].Line} for its fingerprints but not for its SMILES.");
            }
        }

        var set = new CompoundSet(
            [.. kept.Select(i => records[i].Id)],
            smiles,
            types.ToDictionary(t => t, t => kept.SelectMany(i => computed.Fingerprint(t, i).ToArray()).ToArray()));
        // The file's other columns (CSV) or data fields (SDF), one JSON object per compound.
        var properties = kept.Select(i => records[i].Properties.Count == 0 ? null : JsonSerializer.Serialize(records[i].Properties)).ToArray();
        var metadata = new Dictionary<string, string> { ["compound_source"] = "upload", ["refused"] = refused.Count.ToString(CultureInfo.InvariantCulture) };
        if (properties.Any(p => p is not null))
        {
            var columns = string.Join(',', kept.SelectMany(i => records[i].Properties.Keys).Distinct());
            metadata[PropertiesKey] = (await StoreTextsAsync(DatasetIds.For("compound-properties", compoundsId.ToString()), $"{name}-properties", $"the other columns of {name}",
                set.Ids, [.. properties.Select(p => p ?? "{}")], new() { ["compounds_dataset"] = compoundsId.ToString(), [PropertyColumnsKey] = columns }, cancellationToken)).Id.ToString();
            metadata[PropertyColumnsKey] = columns;
        }

        if (refused.Count > 0)
        {
            metadata[RefusedKey] = (await StoreTextsAsync(DatasetIds.For("compound-refused", compoundsId.ToString()), $"{name}-refused", $"the compounds of {name} RDKit could not read",
                [.. refused.Select(r => r.Id)], [.. refused.Select(r => JsonSerializer.Serialize(r))], new() { ["compounds_dataset"] = compoundsId.ToString() }, cancellationToken)).Id.ToString();
        }

        var info = await StoreAsync(set, compoundsId, name, metadata, computed.RdkitVersion,
            $"compound upload: {name} ({records.Count} compounds, {refused.Count} refused by RDKit)", type => $"{type.Name} fingerprints computed by RDKit from the SMILES of {name}", cancellationToken);
        return new CompoundUpload(info, refused);
    }

    /// <summary>
    /// The properties an upload's file gave its compounds (a CSV's other columns, an SD file's data
    /// fields), in the compounds' order from <paramref name="offset"/>: each compound's id and values.
    /// </summary>
    public async Task<CompoundProperties> PropertiesAsync(Guid compoundsId, int offset, int limit, CancellationToken cancellationToken)
    {
        if (offset < 0 || limit is < 1 or > 10_000)
        {
            throw new ArgumentException("offset is 0 or more and limit 1 to 10,000.");
        }

        var compounds = await datasets.GetRequiredAsync(compoundsId, cancellationToken);
        if (compounds.Kind != DatasetKind.Compounds || compounds.Metadata.ContainsKey("compounds_dataset"))
        {
            throw new ArgumentException($"Dataset {compounds.Id} is not a compounds dataset of an import or upload.");
        }

        if (!compounds.Metadata.TryGetValue(PropertiesKey, out var id))
        {
            return new CompoundProperties(compounds.Id, compounds.Count, [], []);
        }

        var (_, content) = await datasets.ReadRequiredAsync(Guid.Parse(id), cancellationToken);
        var rows = Enumerable.Range(offset, Math.Max(0, Math.Min(limit, compounds.Count - offset)))
            .Select(i => new CompoundPropertyRow(content.Labels![i], JsonSerializer.Deserialize<Dictionary<string, string>>(content.Texts![i])!)).ToList();
        return new CompoundProperties(compounds.Id, compounds.Count, compounds.Metadata[PropertyColumnsKey].Split(','), rows);
    }

    /// <summary>A compounds dataset of one text per compound: the compounds' SMILES, or what goes with an upload's compounds (their properties, the compounds left out, as JSON).</summary>
    private Task<DatasetInfo> StoreTextsAsync(Guid contentId, string name, string source, IReadOnlyList<string> labels, string[] texts,
        Dictionary<string, string> metadata, CancellationToken cancellationToken) =>
        datasets.GetOrCreateAsync(contentId, () => (
            new DatasetInfo
            {
                Id = Guid.Empty,
                Name = name,
                Kind = DatasetKind.Compounds,
                Count = texts.Length,
                Created = DateTimeOffset.UtcNow,
                Source = source,
                Metadata = metadata,
            },
            new DatasetContent { Weights = Ones(texts.Length), Labels = [.. labels], Texts = texts }), cancellationToken);

    /// <summary>The compounds an upload left out, as stored with it (none for a shipped import).</summary>
    private async Task<IReadOnlyList<RefusedCompound>> RefusedAsync(DatasetInfo compounds, CancellationToken cancellationToken)
    {
        if (!compounds.Metadata.TryGetValue(RefusedKey, out var id))
        {
            return [];
        }

        var (_, content) = await datasets.ReadRequiredAsync(Guid.Parse(id), cancellationToken);
        return [.. content.Texts!.Select(t => JsonSerializer.Deserialize<RefusedCompound>(t)!)];
    }

    /// <summary>The fingerprint types of a comma-separated list (empty: every type).</summary>
    public static IReadOnlyList<FingerprintType> ParseTypes(string? fingerprints)
    {
        if (string.IsNullOrWhiteSpace(fingerprints))
        {
            return Rdkit.Types;
        }

        return [.. fingerprints.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct().Select(name =>
            Rdkit.Types.FirstOrDefault(t => t.Name == name)
            ?? throw new ArgumentException($"Unknown fingerprint type '{name}': use {string.Join(", ", Rdkit.Types.Select(t => t.Name))}."))];
    }

    /// <summary>A compounds dataset and its fingerprint datasets, stored once per content (and tenant).</summary>
    private async Task<DatasetInfo> StoreAsync(CompoundSet set, Guid compoundsId, string name, Dictionary<string, string> metadata, string rdkitVersion, string source, Func<FingerprintType, string> fingerprintSource, CancellationToken cancellationToken)
    {
        metadata[DatasetMetadataKeys.RdkitVersion] = rdkitVersion;
        foreach (var (type, words) in set.Fingerprints)
        {
            var fingerprints = await datasets.GetOrCreateAsync(DatasetIds.For("fingerprints", compoundsId.ToString(), type.Name), () => (
                new DatasetInfo
                {
                    Id = Guid.Empty,
                    Name = $"{name}-{type.Name}",
                    Kind = DatasetKind.Binary,
                    Count = set.Count,
                    Bits = type.Bits,
                    FingerprintType = type.Name,
                    Created = DateTimeOffset.UtcNow,
                    Source = fingerprintSource(type),
                    Metadata = new Dictionary<string, string>
                    {
                        ["compounds_dataset"] = compoundsId.ToString(),
                        [DatasetMetadataKeys.RdkitVersion] = rdkitVersion,
                        [DatasetMetadataKeys.FingerprintOptions] = Rdkit.OptionsOf(type),
                    },
                },
                new DatasetContent { Words = words, Weights = Ones(set.Count), Labels = [.. set.Ids] }), cancellationToken);
            metadata[FingerprintKeyPrefix + type.Name] = fingerprints.Id.ToString();
        }

        return await StoreTextsAsync(compoundsId, name, source, set.Ids, [.. set.Smiles], metadata, cancellationToken);
    }

    /// <summary>The binary dataset of <paramref name="type"/> fingerprints of an imported compound set.</summary>
    public async Task<DatasetInfo> FingerprintsAsync(Guid compoundsId, string? type, CancellationToken cancellationToken)
    {
        var compounds = await datasets.GetRequiredAsync(compoundsId, cancellationToken);
        if (compounds.Kind != DatasetKind.Compounds)
        {
            throw new ArgumentException($"Dataset {compounds.Id} is {DatasetCatalog.KindName(compounds.Kind)}; fingerprints come from a compounds dataset (an import).");
        }

        var available = compounds.Metadata.Keys.Where(k => k.StartsWith(FingerprintKeyPrefix, StringComparison.Ordinal)).Select(k => k[FingerprintKeyPrefix.Length..]).ToList();
        if (type is null || !compounds.Metadata.TryGetValue(FingerprintKeyPrefix + type, out var id))
        {
            throw new ArgumentException($"Fingerprint type '{type}' is not available for {compounds.Name}: it has {string.Join(", ", available)}.");
        }

        return await datasets.GetRequiredAsync(Guid.Parse(id), cancellationToken);
    }

    private static double[] Ones(int count) => Enumerable.Repeat(1.0, count).ToArray();
}
