using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Operations;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Chem;

/// <summary>The chem service's workflow operations: import a compound file, take one of its fingerprint datasets.</summary>
internal static class ChemOperations
{
    public static IReadOnlyList<OperationSpec> Describe() =>
    [
        new()
        {
            Service = ChemService.Name,
            Name = "import",
            Summary = "Imports a compound file (ids, SMILES and the fingerprints shipped with it).",
            Parameters =
            [
                new("source", ParameterKind.String, "the compound file") { Required = true, Allowed = [.. CompoundCatalog.Sources.Select(s => s.Name)] },
                new("limit", ParameterKind.Integer, "import only the first N compounds (0 = all)") { Default = 0, Minimum = 0 },
            ],
            Outputs = [new("dataset", T.Compounds, "the compounds"), new("count", T.Integer, "compounds")],
            Execute = async c =>
            {
                var chem = new ChemClient(await c.InvokerAsync(ChemService.Name));
                var info = await chem.ImportAsync(new ImportCompoundsRequest { Source = c.Parameter<string>("source"), Limit = c.Parameter<int>("limit") }, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        },
        new()
        {
            Service = ChemService.Name,
            Name = "fingerprints",
            Summary = "The binary fingerprint dataset of a compound set, of one named type.",
            Inputs = [new("dataset", T.Compounds, true, "imported compounds")],
            Parameters = [new("type", ParameterKind.String, "the fingerprint type") { Default = CompoundCatalog.Types[0].Name, Allowed = [.. CompoundCatalog.Types.Select(t => t.Name)] }],
            Outputs = [new("dataset", T.Fingerprints, "one fingerprint per compound"), new("count", T.Integer, "fingerprints"), new("bits", T.Integer, "bits per fingerprint")],
            Execute = async c =>
            {
                var chem = new ChemClient(await c.InvokerAsync(ChemService.Name));
                var info = await chem.FingerprintsAsync(new FingerprintRequest { DatasetId = c.InputString("dataset"), FingerprintType = c.Parameter<string>("type") }, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count), ("bits", info.Bits));
            },
        },
    ];
}
