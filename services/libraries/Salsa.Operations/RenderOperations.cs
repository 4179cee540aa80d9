using System.Text.Json;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Contracts.Render;
using Salsa.Hosting;
using Salsa.Rendering;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Molecules;
using Salsa.Rendering.Scatter;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The render service's workflow operations: a census map of a clustering, a scatter plot of an embedding, a grid of molecules.</summary>
public static class RenderOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        var map = new CensusMapOptions();
        var scatter = new ScatterOptions();
        return
        [
            new()
            {
                Service = ServiceNames.Render,
                Name = "census-map",
                Summary = "A map of clustered census points (SVG, PNG) and GeoJSON of the clusters with their population.",
                Inputs = [new("points", T.Points, true, "the census query's points"), new("clustering", T.Clustering, true, "their clustering (annealing or k-means)")],
                Parameters =
                [
                    new("width", ParameterKind.Integer, "pixels") { Default = map.Width, Minimum = FigureBounds.MinWidth, Maximum = limits.MaxImageSide },
                    new("height", ParameterKind.Integer, "pixels") { Default = map.Height, Minimum = FigureBounds.MinHeight, Maximum = limits.MaxImageSide },
                    new("title", ParameterKind.String, "the map's title (empty: the number of clusters)") { Default = "" },
                    new("counties", ParameterKind.Boolean, "draw county outlines") { Default = false },
                ],
                Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
                Artifacts = [Artifacts.MapSvg, Artifacts.MapPng, Artifacts.ClustersGeoJson],
                Execute = async c =>
                {
                    var clustering = c.InputJob("clustering");
                    var request = new RenderCensusMapRequest
                    {
                        PointsDatasetId = c.InputString("points"),
                        ClusteringJobId = clustering.JobId,
                        ClusteringService = clustering.Service,
                        Width = c.Parameter<int>("width"),
                        Height = c.Parameter<int>("height"),
                        Title = c.Parameter<string>("title"),
                        Counties = c.Parameter<bool>("counties"),
                    };
                    var job = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartCensusMapAsync(request, options));
                    return StepOutcome.Of(job, ("job", job.ToJson()));
                },
            },
            new()
            {
                Service = ServiceNames.Render,
                Name = "scatter",
                Summary = "A scatter plot (SVG, PNG) of an embedding, coloured by the cluster of each item when a clustering of its dataset is given.",
                Inputs = [new("embedding", T.Embedding, true, "the MDS embedding"), new("clustering", T.Clustering, false, "a clustering of the embedding's dataset, to colour the items")],
                Parameters =
                [
                    new("width", ParameterKind.Integer, "pixels") { Default = scatter.Width, Minimum = FigureBounds.MinWidth, Maximum = limits.MaxImageSide },
                    new("height", ParameterKind.Integer, "pixels") { Default = scatter.Height, Minimum = FigureBounds.MinHeight, Maximum = limits.MaxImageSide },
                    new("title", ParameterKind.String, "the plot's title (empty: the embedding's size and stress)") { Default = "" },
                ],
                Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
                Artifacts = [Artifacts.ScatterSvg, Artifacts.ScatterPng],
                Execute = async c =>
                {
                    var request = new RenderScatterRequest
                    {
                        EmbeddingJobId = c.InputJob("embedding").JobId,
                        ClusteringJobId = c.HasInput("clustering") ? c.InputJob("clustering").JobId : "",
                        Width = c.Parameter<int>("width"),
                        Height = c.Parameter<int>("height"),
                        Title = c.Parameter<string>("title"),
                    };
                    var job = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartScatterAsync(request, options));
                    return StepOutcome.Of(job, ("job", job.ToJson()));
                },
            },
            new()
            {
                Service = ServiceNames.Render,
                Name = "molecule-grid",
                Summary = "A grid of compounds as RDKit draws them (SVG), each captioned with its id and size: the representatives of a clustering, e.g. the medoids of the largest Butina clusters.",
                Inputs =
                [
                    new("compounds", T.Compounds, true, "the compounds (ids and SMILES)"),
                    new("items", T.Indices, true, "which compounds, in order (e.g. Butina medoids, largest cluster first)"),
                    new("sizes", T.Numbers, false, "a size per item (e.g. its cluster's)"),
                ],
                Parameters =
                [
                    new("count", ParameterKind.Integer, "draw the first N items") { Default = 20, Minimum = 1, Maximum = FigureBounds.MaxMolecules, OperationOnly = true },
                    new("columns", ParameterKind.Integer, "cells per row") { Default = 5, Minimum = 1, Maximum = MoleculeGrid.MaxColumns },
                    new("cellSize", ParameterKind.Integer, "a cell's side in pixels") { Default = 220, Minimum = 80, Maximum = 800 },
                    new("title", ParameterKind.String, "the grid's title (empty: how many compounds)") { Default = "" },
                ],
                Outputs = [new("job", T.Rendering, "the rendering job (its file)")],
                Artifacts = [Artifacts.MoleculesSvg],
                Execute = async c =>
                {
                    var count = c.Parameter<int>("count");
                    var request = new RenderMoleculeGridRequest
                    {
                        CompoundsDatasetId = c.InputString("compounds"),
                        Columns = c.Parameter<int>("columns"),
                        CellSize = c.Parameter<int>("cellSize"),
                        Title = c.Parameter<string>("title"),
                    };
                    request.Items.AddRange(c.Input("items").Deserialize<int[]>()!.Take(count));
                    if (c.HasInput("sizes"))
                    {
                        request.Sizes.AddRange(c.Input("sizes").Deserialize<double[]>()!.Take(count));
                    }

                    var job = await c.RunJobAsync(ServiceNames.Render, (invoker, options) => new RenderClient(invoker).StartMoleculeGridAsync(request, options));
                    return StepOutcome.Of(job, ("job", job.ToJson()));
                },
            },
        ];
    }
}
