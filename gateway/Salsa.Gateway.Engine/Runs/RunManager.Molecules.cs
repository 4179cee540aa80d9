using System.Text.Json.Nodes;
using Grpc.Core;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Runs;

/// <summary>A run's molecules read before it is accepted: a query SMILES RDKit cannot read refuses the run at once, not after the steps before it ran.</summary>
public sealed partial class RunManager
{
    /// <summary>How long the chem service may take to read one molecule here; past it (or unreachable) the step reads it itself.</summary>
    private static readonly TimeSpan MoleculeCheckDeadline = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Has the chem service's RDKit read each molecule the steps are given (parameters marked
    /// <see cref="Contracts.Operations.ParameterSpec.IsMolecule"/>); those it cannot read are the
    /// workflow's errors, each naming its step and parameter, and the run is refused. A chem service
    /// that does not answer checks nothing: the step that reads the molecule will say.
    /// </summary>
    private async Task CheckMoleculesAsync(WorkflowDefinition workflow, CancellationToken cancellationToken)
    {
        var errors = new List<WorkflowError>();
        foreach (var step in workflow.Steps)
        {
            foreach (var parameter in catalog.Find(step.Service, step.Operation)?.Parameters.Where(p => p.IsMolecule) ?? [])
            {
                if (step.Parameters.GetValueOrDefault(parameter.Name) is not JsonValue value || !value.TryGetValue<string>(out var smiles) || smiles.Length == 0)
                {
                    continue;
                }

                try
                {
                    var chem = new ChemClient(await services.ChannelAsync("chem", cancellationToken).ConfigureAwait(false));
                    await chem.DepictAsync(new DepictRequest { Smiles = smiles }, new CallOptions(deadline: DateTime.UtcNow + MoleculeCheckDeadline, cancellationToken: cancellationToken)).ConfigureAwait(false);
                }
                catch (RpcException exception) when (exception.StatusCode is StatusCode.InvalidArgument)
                {
                    errors.Add(new WorkflowError(step.Position.Line, step.Position.Column, $"step '{step.Id}': parameter '{parameter.Name}' is not a molecule RDKit can read: {exception.Status.Detail}"));
                }
                catch (RpcException exception) when (exception.StatusCode is StatusCode.Unavailable or StatusCode.DeadlineExceeded or StatusCode.ResourceExhausted)
                {
                    // The step reads it when it runs, and says so then.
                }
            }
        }

        if (errors.Count > 0)
        {
            throw new WorkflowValidationException(workflow.File is { } file ? Path.GetFileName(file) : "inline", errors);
        }
    }
}
