using System.Globalization;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Operations;
using CompoundSource = Salsa.DataFiles.CompoundSource;
using FingerprintType = Salsa.DataFiles.FingerprintType; // not the contract's message of the same name
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The chem service's workflow operations: import a compound file, take one of its fingerprint datasets.</summary>
public static class ChemOperations
{
    public static IReadOnlyList<OperationSpec> Describe() => [Import(), Fingerprints()];

    private static OperationSpec Import()
    {
        ParameterSpec source = new("source", ParameterKind.String, "a shipped compound file") { Allowed = [.. CompoundSource.Shipped.Select(s => s.Name)] };
        ParameterSpec limit = new("limit", ParameterKind.Integer, "of a shipped file, import only the first N compounds (0 = all)") { Default = 0, Minimum = 0 };
        ParameterSpec file = new("file", ParameterKind.String, "a compound file: a path on the chem service's machine, or an https URL it fetches; written relative in a workflow file, from that file's folder") { IsPath = true };
        ParameterSpec dataset = new("dataset", ParameterKind.String, "the id of a compounds dataset already stored (POST /api/chem/uploads)");
        ParameterSpec name = new("name", ParameterKind.String, "the dataset's name for a file (default: the file's name)");
        ParameterSpec format = new("format", ParameterKind.String, "the file's layout") { Allowed = ["auto", "smiles", "csv", "sdf"] };
        ParameterSpec fingerprints = new("fingerprints", ParameterKind.StringList, $"fingerprint types RDKit computes for a file: {string.Join(", ", FingerprintType.Shipped.Select(t => t.Name))} (default: every type)");
        return new()
        {
            Service = ServiceNames.Chem,
            Name = "import",
            Summary = "Imports compounds: a shipped compound file with its fingerprints (source), your own compound file fingerprinted by RDKit (file: a path on the service's machine or an https URL; SMILES lines, CSV or SDF, plain or gzip), or a compounds dataset you uploaded (dataset). Give exactly one of the three.",
            Parameters = [source, limit, file, dataset, name, format, fingerprints],
            Outputs =
            [
                new("dataset", T.Compounds, "the compounds"), new("count", T.Integer, "compounds"), new("refused", T.Integer, "molecules of a file RDKit could not read (left out)"),
                new("rdkitVersion", T.Text, "the RDKit release that made their fingerprints"),
            ],
            Execute = async c =>
            {
                var chem = new ChemClient(await c.InvokerAsync(ServiceNames.Chem));
                var request = new ImportCompoundsRequest
                {
                    Source = c.TextOrEmpty(source),
                    Limit = c.Get<int>(limit),
                    Location = c.TextOrEmpty(file),
                    DatasetId = c.TextOrEmpty(dataset),
                    Compounds = new UploadCompoundsHeader { Name = c.TextOrEmpty(name), Format = c.TextOrEmpty(format) },
                };
                request.Compounds.Fingerprints.AddRange(c.Strings(fingerprints));
                var info = await chem.ImportAsync(request, c.CallOptions);
                var refused = info.Metadata.TryGetValue("refused", out var text) ? int.Parse(text, CultureInfo.InvariantCulture) : 0;
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count), ("refused", refused), ("rdkitVersion", info.RdkitVersion));
            },
        };
    }

    private static OperationSpec Fingerprints()
    {
        InputSpec compounds = new("dataset", T.Compounds, true, "imported compounds");
        ParameterSpec type = new("type", ParameterKind.String, "the fingerprint type") { Default = FingerprintType.Shipped[0].Name, Allowed = [.. FingerprintType.Shipped.Select(t => t.Name)] };
        return new()
        {
            Service = ServiceNames.Chem,
            Name = "fingerprints",
            Summary = "The binary fingerprint dataset of a compound set, of one named type.",
            Inputs = [compounds],
            Parameters = [type],
            Outputs =
            [
                new("dataset", T.Fingerprints, "one fingerprint per compound"), new("count", T.Integer, "fingerprints"), new("bits", T.Integer, "bits per fingerprint"),
                new("rdkitVersion", T.Text, "the RDKit release that made them"), new("options", T.Text, "how: RDKit's call and its options"),
            ],
            Execute = async c =>
            {
                var chem = new ChemClient(await c.InvokerAsync(ServiceNames.Chem));
                var info = await chem.FingerprintsAsync(new FingerprintRequest { DatasetId = c.InputString(compounds), FingerprintType = c.Get<string>(type) }, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count), ("bits", info.Bits), ("rdkitVersion", info.RdkitVersion), ("options", info.FingerprintOptions));
            },
        };
    }
}
