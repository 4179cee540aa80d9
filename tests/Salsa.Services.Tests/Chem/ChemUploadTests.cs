using System.IO.Compression;
using System.Net;
using System.Text;
using Salsa.Chem;
using Salsa.Chemistry;
using Salsa.Contracts.Clients;
using Salsa.DataFiles;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Chem;

/// <summary>
/// A user's own compound file through the chem service: SMILES lines or CSV, body or multipart,
/// fingerprinted by RDKit to the shipped bits; molecules RDKit cannot read listed with line and
/// reason; a malformed file refused whole, with nothing stored.
/// </summary>
public sealed class ChemUploadTests(ChemServiceFixture fixture) : IClassFixture<ChemServiceFixture>
{
    private static readonly Lazy<CompoundSet> s_fixture = new(() => CompoundSet.ReadFile(CompoundSet.FixturePath));

    private ServiceUnderTest<ChemService> Service => fixture.Service;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task SmilesFile_WithUnreadableMolecules_TheRestImportedWithRdkitsBits_TheRefusedListedWithLineAndReason()
    {
        var shipped = s_fixture.Value;
        var lines = new List<string> { "# 60 compounds of the fixture, three RDKit cannot read, and a chain of 3,000 atoms" };
        lines.AddRange(Enumerable.Range(0, 60).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}"));
        lines.Insert(11, "C1CC ring-never-closed");
        lines.Insert(31, "c1cccc1 five-aromatic");
        lines.Add("C(C)(C)(C)(C)C pentavalent");
        lines.Add(new string('C', 3_000) + " long-chain");

        using var response = await Service.Rest.PostAsync("/api/chem/uploads?name=my-compounds&format=smiles", new StringContent(string.Join('\n', lines), Encoding.UTF8, "text/plain"), Token);
        var upload = await ReadAsync(response, HttpStatusCode.Created);

        // A real molecule is read however long its SMILES: what it may cost is its time.
        Assert.Equal(61, upload.Imported);
        Assert.Equal([(12, "ring-never-closed"), (32, "five-aromatic"), (64, "pentavalent")], upload.Refused.Select(r => (r.Line, r.Id)));
        Assert.Contains("unclosed ring", upload.Refused[0].Reason, StringComparison.Ordinal);
        Assert.Contains("valence", upload.Refused[2].Reason, StringComparison.Ordinal);
        Assert.Equal(("compounds", "my-compounds"), (upload.Dataset.Kind, upload.Dataset.Name));
        // The fingerprints say which RDKit made them, and how: the pinned release, whatever the machine has.
        Assert.Equal("2026.09.1", upload.Dataset.RdkitVersion);
        var ecfp = await Service.GetJsonAsync<Salsa.Hosting.Datasets.DatasetView>($"/api/chem/compounds/{upload.Dataset.DatasetId}/fingerprints/{FingerprintType.Ecfp4.Name}");
        Assert.Equal(("2026.09.1", "get_morgan_fp {\"radius\":2,\"nBits\":1024}"), (ecfp.RdkitVersion, ecfp.FingerprintOptions));
        foreach (var type in new[] { FingerprintType.Ecfp4, FingerprintType.Maccs })
        {
            var points = await new DatasetsClient(Service.Grpc).DownloadAsync(upload.Dataset.Metadata["fingerprints." + type.Name]);
            Assert.Equal([.. shipped.Ids.Take(60), "long-chain"], points.Labels);
            for (var i = 0; i < 60; i++)
            {
                Assert.Equal(CompoundSet.FormatHex(shipped.Fingerprint(type, i), type), CompoundSet.FormatHex(points.Words.Skip(i * type.Words).Take(type.Words).ToArray(), type));
            }
        }

        // The same file again is the same dataset, not a copy.
        var before = await Service.Rest.CountDatasetsAsync();
        using var again = await Service.Rest.PostAsync("/api/chem/uploads?name=my-compounds&format=smiles", new StringContent(string.Join('\n', lines), Encoding.UTF8, "text/plain"), Token);
        Assert.Equal(upload.Dataset.DatasetId, (await ReadAsync(again, HttpStatusCode.Created)).Dataset.DatasetId);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task GzipCsv_AsAMultipartFile_OnlyTheAskedType_AndClusteringItWorksLikeTheShippedSets()
    {
        var shipped = s_fixture.Value;
        var csv = "name;SMILES;note;mw\n" + string.Join('\n', Enumerable.Range(100, 40).Select(i => $"\"{shipped.Ids[i]}\";{shipped.Smiles[i]};\"kept; as a property\";{i}.5"));
        using var packed = new MemoryStream();
        await using (var gzip = new GZipStream(packed, CompressionLevel.Fastest, leaveOpen: true))
        {
            await gzip.WriteAsync(Encoding.UTF8.GetBytes(csv), Token);
        }

        using var form = new MultipartFormDataContent { { new ByteArrayContent(packed.ToArray()), "file", "compounds.csv.gz" } };
        using var response = await Service.Rest.PostAsync($"/api/chem/uploads?name=csv-compounds&fingerprints={FingerprintType.Maccs.Name}", form, Token);
        var upload = await ReadAsync(response, HttpStatusCode.Created);

        Assert.Equal(40, upload.Imported);
        Assert.Empty(upload.Refused);
        Assert.Equal([FingerprintType.Maccs.Name], upload.Dataset.Metadata.Keys.Where(k => k.StartsWith("fingerprints.", StringComparison.Ordinal)).Select(k => k["fingerprints.".Length..]));
        var maccs = await Service.GetJsonAsync<Salsa.Hosting.Datasets.DatasetView>($"/api/chem/compounds/{upload.Dataset.DatasetId}/fingerprints/{FingerprintType.Maccs.Name}");
        Assert.Equal(("binary", 40, 167), (maccs.Kind, maccs.Count, maccs.Bits));

        // The file's other columns are the compounds' properties, in their order.
        var properties = await Service.GetJsonAsync<CompoundProperties>($"/api/chem/compounds/{upload.Dataset.DatasetId}/properties?offset=2&limit=3");
        Assert.Equal(["note", "mw"], properties.Columns);
        Assert.Equal(shipped.Ids.Skip(102).Take(3), properties.Compounds.Select(c => c.Id));
        Assert.Equal(("kept; as a property", "102.5"), (properties.Compounds[0].Values["note"], properties.Compounds[0].Values["mw"]));
    }

    [Fact]
    public async Task GzipSdf_MoleculesFromTheirMolblocks_StoredAsRdkitsSmiles_TheBrokenRecordListed()
    {
        var shipped = s_fixture.Value;
        using var rdkit = new Rdkit(2);
        var sdf = new StringBuilder();
        for (var i = 200; i < 230; i++)
        {
            sdf.Append(await rdkit.MolBlockAsync(shipped.Smiles[i], Token)).Append("> <ID>\n").Append(shipped.Ids[i]).Append("\n\n> <MW>\n").Append(i).Append(".25\n\n$$$$\n");
        }

        var line = sdf.ToString().Split('\n').Length;
        sdf.Append("\n  broken\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n> <ID>\nbroken\n\n$$$$\n");
        using var response = await Service.Rest.PostAsync("/api/chem/uploads?name=sdf-compounds", new ByteArrayContent(Fixtures.Gzip(sdf.ToString())), Token);
        var upload = await ReadAsync(response, HttpStatusCode.Created);

        Assert.Equal(30, upload.Imported);
        var refused = Assert.Single(upload.Refused);
        Assert.Equal((line, "broken"), (refused.Line, refused.Id));
        var ecfp = await new DatasetsClient(Service.Grpc).DownloadAsync(upload.Dataset.Metadata["fingerprints." + FingerprintType.Ecfp4.Name]);
        Assert.Equal(shipped.Ids.Skip(200).Take(30), ecfp.Labels);
        var properties = await Service.GetJsonAsync<CompoundProperties>($"/api/chem/compounds/{upload.Dataset.DatasetId}/properties");
        Assert.Equal(["MW"], properties.Columns);
        Assert.Equal("229.25", properties.Compounds[29].Values["MW"]);
        for (var i = 0; i < 30; i++)
        {
            Assert.Equal(CompoundSet.FormatHex(shipped.Fingerprint(FingerprintType.Ecfp4, 200 + i), FingerprintType.Ecfp4), CompoundSet.FormatHex(ecfp.Words.Skip(i * 16).Take(16).ToArray(), FingerprintType.Ecfp4));
        }
    }

    [Fact]
    public async Task GrpcClientStream_TheSameFileIsTheSameDataset_RefusedListed_AndImportByPathOrIdFindsIt()
    {
        var shipped = s_fixture.Value;
        var text = string.Join('\n', Enumerable.Range(300, 25).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}").Append("C1CC unclosed"));
        using var rest = await Service.Rest.PostAsync("/api/chem/uploads?name=streamed&fingerprints=rdkit-ecfp4-1024", new StringContent(text, Encoding.UTF8, "text/plain"), Token);
        var viaRest = await ReadAsync(rest, HttpStatusCode.Created);

        using var call = new ChemClient(Service.Grpc).Upload(GrpcCalls.Options);
        var header = new Contracts.Chem.UploadCompoundsHeader { Name = "streamed", Fingerprints = { "rdkit-ecfp4-1024" } };
        await call.RequestStream.WriteAsync(new Contracts.Chem.UploadCompoundsRequest { Header = header }, Token);
        foreach (var chunk in Encoding.UTF8.GetBytes(text).Chunk(256))
        {
            await call.RequestStream.WriteAsync(new Contracts.Chem.UploadCompoundsRequest { Chunk = Google.Protobuf.ByteString.CopyFrom(chunk) }, Token);
        }

        await call.RequestStream.CompleteAsync();
        var viaGrpc = await call;
        Assert.Equal(viaRest.Dataset.DatasetId.ToString(), viaGrpc.Dataset.DatasetId);
        Assert.Equal((26, "unclosed"), (viaGrpc.Refused.Single().Line, viaGrpc.Refused.Single().Id));

        using var folder = new Salsa.Testing.TemporaryDirectory();
        var path = Path.Combine(folder.Path, "streamed.smi");
        await File.WriteAllTextAsync(path, text, Token);
        var byPath = await Service.Rest.PostForAsync<Salsa.Hosting.Datasets.DatasetView>("/api/chem/imports", new { location = path, name = "streamed", fingerprints = "rdkit-ecfp4-1024" });
        Assert.Equal(viaRest.Dataset.DatasetId, byPath.DatasetId);
        var byId = await new ChemClient(Service.Grpc).ImportAsync(new Contracts.Chem.ImportCompoundsRequest { DatasetId = viaRest.Dataset.DatasetId.ToString() }, GrpcCalls.Options);
        Assert.Equal(viaRest.Dataset.DatasetId.ToString(), byId.DatasetId);
    }

    [Theory]
    [InlineData("name=bad&format=csv", "id,smiles\na,CCO\nb,\nc,C", "line 3")]
    [InlineData("name=bad&format=csv", "id,structure\na,CCO", "no SMILES column")]
    [InlineData("name=bad", "C1CC\nc1cccc1\n", "RDKit read 0 of the 2 compounds of bad")]
    [InlineData("name=bad", "CCO a\nC1CC b\nc1cccc1 c\n", "RDKit read 1 of the 3 compounds of bad, less than 50 %")]
    [InlineData("name=bad", "", "no compounds")]
    [InlineData("name=bad&fingerprints=pubchem-881", "CCO", "Unknown fingerprint type 'pubchem-881'")]
    [InlineData("name=bad&format=sdf9", "CCO", "Unknown compound file format")]
    [InlineData("name=bad&format=sdf", "x\n\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n$$$$\n", "line 1: an SD record whose molblock has no 'M  END'")]
    [InlineData("name=", "CCO", "needs a name")]
    public async Task BadFile_400NamingTheProblem_NothingStored(string query, string body, string expected)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync($"/api/chem/uploads?{query}", new StringContent(body, Encoding.UTF8, "text/plain"), Token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains(expected, await response.Content.ReadAsStringAsync(Token), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Theory]
    [InlineData(1)] // inside the trailer: the CRC and length
    [InlineData(8)] // the whole trailer
    [InlineData(40)] // inside the deflate data of the last rows
    public async Task GzipCutShort_400_NothingStored(int cut)
    {
        // The cut removes the end of the last molecule, leaving a valid SMILES prefix of it.
        var shipped = s_fixture.Value;
        var text = string.Join('\n', Enumerable.Range(100, 40).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}")) + "\nCCN(CC)CCOc1ccc(cc1)C(=O)c1ccccc1 last\n";
        var gzip = Fixtures.Gzip(text);
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/chem/uploads?name=cut", new ByteArrayContent(gzip[..^cut]), Token);

        Assert.Contains("the gzip data is cut short or damaged", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
        using var whole = await Service.Rest.PostAsync("/api/chem/uploads?name=cut", new ByteArrayContent(gzip), Token);
        Assert.Equal(41, (await ReadAsync(whole, HttpStatusCode.Created)).Imported);
    }

    [Fact]
    public async Task RandomBytes_400AtTheFirstByteThatIsNotText_NothingStored()
    {
        var bytes = new byte[1 << 20];
        new Random(35).NextBytes(bytes);
        var first = Array.FindIndex(bytes, b => b < 0x20 && b is not (9 or 10 or 12 or 13) || b >= 0x80);
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/chem/uploads?name=noise", new ByteArrayContent(bytes), Token);

        var problem = await RestCalls.ProblemAsync(response, 400);
        Assert.StartsWith($"noise is not text at byte {first:N0}", problem, StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task TheSameBytesAgain_FoundBeforeRdkitFingerprintsAnything()
    {
        // 43 molecules (no other test uploads as many), one RDKit cannot read.
        using var spans = new Salsa.Testing.ActivityRecorder(ChemService.Name);
        var shipped = s_fixture.Value;
        var text = string.Join('\n', Enumerable.Range(200, 42).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}").Append("C1CC unclosed"));
        bool Fingerprinting(System.Diagnostics.Activity a) => a.OperationName == "rdkit fingerprints" && a.GetTagItem("salsa.molecules") is 43;

        using var first = await Service.Rest.PostAsync("/api/chem/uploads?name=again", new StringContent(text, Encoding.UTF8, "text/plain"), Token);
        var uploaded = await ReadAsync(first, HttpStatusCode.Created);
        await spans.WaitForAsync(Fingerprinting, Token);
        using var second = await Service.Rest.PostAsync("/api/chem/uploads?name=again", new StringContent(text, Encoding.UTF8, "text/plain"), Token);
        var again = await ReadAsync(second, HttpStatusCode.Created);

        Assert.Equal(uploaded.Dataset.DatasetId, again.Dataset.DatasetId);
        Assert.Equal((42, 43), (again.Imported, again.Refused.Single().Line));
        Assert.Equal(uploaded.Refused.Single(), again.Refused.Single());
        Assert.Single(spans.Stopped, Fingerprinting);
    }

    [Theory]
    [InlineData("application/x-www-form-urlencoded")] // what curl --data-binary sends
    [InlineData("application/octet-stream")]
    [InlineData(null)]
    public async Task AFileWithAnyOrNoContentType_ReadByItsContent(string? contentType)
    {
        var shipped = s_fixture.Value;
        var content = new ByteArrayContent(Encoding.UTF8.GetBytes(string.Join('\n', Enumerable.Range(250, 5).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}"))));
        if (contentType is not null)
        {
            content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(contentType);
        }

        using var response = await Service.Rest.PostAsync("/api/chem/uploads?name=typed", content, Token);

        Assert.Equal(5, (await ReadAsync(response, HttpStatusCode.Created)).Imported);
    }

    private static async Task<CompoundUploadView> ReadAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        var text = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.StatusCode == expected, $"{(int)response.StatusCode}: {text}");
        return System.Text.Json.JsonSerializer.Deserialize<CompoundUploadView>(text, RestCalls.Json)!;
    }
}
