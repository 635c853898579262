"""HistAgent's roles: the planner, the manager, the specialists and the answer reformulator."""
