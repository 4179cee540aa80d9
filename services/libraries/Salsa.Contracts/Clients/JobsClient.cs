using Grpc.Core;
using JobsGrpc = Salsa.Contracts.Common.Jobs;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.common.v1.Jobs</c>: watch, cancel and download the outputs of any service's jobs.</summary>
public sealed class JobsClient(CallInvoker invoker) : JobsGrpc.JobsClient(invoker)
{
    public JobsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
