import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';
import { Team } from './team.entity';

/** A user's membership of a team; the user's role applies within each of their teams. */
@Entity({ name: 'team_member' })
@Index('team_member_user_idx', ['userId'])
export class TeamMember {
  @PrimaryColumn({ name: 'team_id', type: 'uuid', primaryKeyConstraintName: 'team_member_pk' })
  teamId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'uuid', primaryKeyConstraintName: 'team_member_pk' })
  userId!: string;

  @ManyToOne(() => Team, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'team_member_team_fk' })
  team?: Team;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'team_member_user_fk' })
  user?: User;
}
