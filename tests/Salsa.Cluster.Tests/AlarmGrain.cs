namespace Salsa.Cluster.Tests;

/// <summary>A grain woken by a reminder, counting the wake-ups in its stored state.</summary>
public interface IAlarmGrain : IGrainWithStringKey
{
    Task ArmAsync(TimeSpan due);

    Task<int> RungAsync();
}

public sealed class AlarmGrain([PersistentState("alarm")] IPersistentState<CounterState> state) : Grain, IAlarmGrain, IRemindable
{
    public Task ArmAsync(TimeSpan due) => this.RegisterOrUpdateReminder("ring", due, TimeSpan.FromMinutes(1));

    public Task<int> RungAsync() => Task.FromResult(state.State.Total);

    public async Task ReceiveReminder(string reminderName, TickStatus status)
    {
        state.State.Total++;
        await state.WriteStateAsync();
    }
}
